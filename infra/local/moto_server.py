"""Starts the moto server with nine fixes that keep it faithful and small.

1. Atomic writes. moto serves requests on several threads and its DynamoDB backend has no lock, so
   two conditional writes (or transactions) on the same item could both pass their condition
   check. Real DynamoDB never allows that, and our uniqueness guards depend on it. The backend's
   item operations are serialised; other services (SQS long polls) stay concurrent.

2. Transactions that copy only what they touch. moto 5.2.5 backs up every table a
   `TransactWriteItems` names with `copy.deepcopy` before running it, so that it can roll back on a
   cancelled condition. The copy grows with the table (about 12 MB per transaction once a table
   holds a few hundred test accounts) and a day of tests drove the server past 20 GB. Here the
   backup is a snapshot of the items the transaction names, at most 100: moto's own transaction
   code runs unchanged, but the "deep copy of a table" it asks for is that snapshot, and its
   rollback ("put the copy back in place of the table") restores those items into the live table
   where it stands: a request validated outside the lock never finds a snapshot among the tables.

3. Queries that read their partition. moto 5.2.5 answers a `Query` on the base table by walking
   every item of the table and keeping those of the partition, so a query's time grows with the
   table (about 1 s per query at 200,000 items), where DynamoDB reads only the partition. Here a
   base-table query walks only its partition's items; what it answers is unchanged (index queries
   are left as moto has them). Benchmarks and tests on a large table then measure the service,
   not moto's walk.

4. Queue attributes computed when read. moto 5.2.5 reads one attribute of a queue
   (`ContentBasedDeduplication`) on every SendMessage through a property that computes all of them,
   counting the queue's messages twice over, so a send's time grows with the queue's length (about
   56 ms at 2,000 messages) and filling a queue takes the square of its length. Here the property
   answers a mapping that computes one attribute when one is asked for, and all of them only when
   all are read (GetQueueAttributes); what it answers is unchanged.

5. Records not kept for the dashboard. moto 5.2.5 appends every model object it ever creates to a
   list its dashboard reads (`/moto-api/data.json`): every version of every DynamoDB item, every
   stream record, queue message and stored file, deleted or overwritten, stays in memory for the
   life of the server, and `data.json` walks them all. After a CI run that walk took over 30 s
   (the reminder e-mail check read its e-mail there and timed out) and the server held 1.3 GB.
   Here those five kinds are created untracked; what the services answer is unchanged, and
   `data.json` still shows tables, queues, buckets, secrets and SES's sent messages, which is what
   the tests and the dev server's banner read it for.

6. A dashboard read that holds still. moto 5.2.5's `data.json` checks each attribute of each object
   can be written as JSON, keeps a reference to it, and writes them all at the end: an attribute
   that changed in between (a table's items, keyed by moto's own types, added by a request on
   another thread) fails the whole answer with a 500. Here each attribute is copied when it is
   checked, with DynamoDB's operations held meanwhile; the answer is otherwise moto's.

7. Index queries that read their partition. An index `Query` (the outbox's pending shards, the
   reminders' due days, the open sales) walks every item of the table in moto 5.2.5, so an idle dev
   server's sweep every minute took a core's half once a table held a thousand accounts. Here the
   items are grouped by their value of the index's hash key at the first index query after a write
   (one walk, as before), and the queries that follow until the next write take their partition's
   items only; what moto answers is unchanged (its own query code runs, over those candidates).

8. A request that costs only itself. moto 5.2.5 lists its package's folders (a stat of each of
   about 150) to route every request, and werkzeug writes a line to the log for each: about a tenth
   of the server's time during the tests. Here the folders are listed once and only warnings are
   logged; what is answered is unchanged.

9. Items written as they are stored. moto 5.2.5 writes each answer by walking the AWS model's
   shapes member by member, which for DynamoDB means every attribute of every item returned: a
   query of 50 items took about 115 ms. Here an attribute value (a `{"S": …}`, `{"M": …}` …) is
   written directly in the same wire form (strings as strings, binaries in base64, maps and lists
   value by value); everything else goes through moto's serializer. infra/local/test_moto_server.py
   holds that the answers are byte for byte moto's own.

Usage: python moto_server.py -H 127.0.0.1 -p 4566
"""

import collections.abc
import copy
import functools
import inspect
import json
import logging
import sys
import threading

import moto.backends as moto_backends
import moto.dynamodb.models as dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.moto_api._internal import urls as moto_api_urls
from moto.server import main
from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import StreamRecord
from moto.s3.models import FakeDeleteMarker, FakeKey
from moto.sqs.models import Message, Queue
from moto.core.serialize import BaseJSONSerializer
from moto.core.utils import camelcase_to_underscores

_LOCK = threading.RLock()

# The keys of the transaction running now, per table name (transactions run under _LOCK, one at a
# time); None outside a transaction.
_touched = None


class _Snapshot:
    """The items of `keys` in `table` as they were, or None where there was none."""

    def __init__(self, table, keys):
        self.saved = []
        for key in keys:
            hash_key = DynamoType(key[table.hash_key_attr])
            range_key = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
            item = table.get_item(hash_key, range_key)
            self.saved.append((hash_key, range_key, copy.deepcopy(item)))

    def restore_into(self, table):
        for hash_key, range_key, item in self.saved:
            if range_key is None:
                if item is None:
                    table.items.pop(hash_key, None)
                else:
                    table.items[hash_key] = item
            elif item is None:
                table.items[hash_key].pop(range_key, None)
            else:
                table.items[hash_key][range_key] = item


class _CopyModule:
    """What moto's DynamoDB backend sees as the `copy` module: a table copied during a transaction
    is a snapshot of the transaction's items; everything else is copied as usual."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value, memo=None):
        if isinstance(value, Table) and _touched is not None:
            return _Snapshot(value, _touched.get(value.name, []))
        return copy.deepcopy(value, memo)


def _keys_by_table(backend, transact_items):
    keys = {}
    for entry in transact_items:
        for op_type, op in entry.items():
            name = op.get("TableName")
            table = backend.tables.get(name)
            if table is None:
                continue
            if op_type == "Put":
                item = op.get("Item", {})
                key = {a: item[a] for a in (table.hash_key_attr, table.range_key_attr) if a and a in item}
            else:
                key = op.get("Key", {})
            if table.hash_key_attr in key and (not table.range_key_attr or table.range_key_attr in key):
                keys.setdefault(name, []).append(key)
    return keys


class _Tables(dict):
    """A backend's tables, where a rollback putting a snapshot back in place of a table restores
    the snapshot's items into the table instead: the table never leaves its place."""

    def __setitem__(self, name, value):
        if isinstance(value, _Snapshot):
            value.restore_into(self[name])
        else:
            super().__setitem__(name, value)


def _with_tables(original):
    @functools.wraps(original)
    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.tables = _Tables(self.tables)

    return init


def _transact_with_snapshots(original):
    @functools.wraps(original)
    def transact(self, transact_items):
        global _touched
        _touched = _keys_by_table(self, transact_items)
        try:
            return original(self, transact_items)
        finally:
            _touched = None

    return transact


# Writes so far (put, update, delete, transaction): the index partitions are grouped again after one.
_writes = 0
_WRITES = ("put_item", "update_item", "delete_item", "transact_write_items")


def _serialised(method):
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        global _writes
        with _LOCK:
            try:
                return method(self, *args, **kwargs)
            finally:
                if method.__name__ in _WRITES:
                    _writes += 1

    return locked


def _index_partition(table, attribute, value):
    """The items of `table` whose `attribute` is `value`, grouped anew after each write."""
    cached = getattr(table, "_index_partitions", None)
    if cached is None or cached[0] != _writes:
        cached = (_writes, {})
        table._index_partitions = cached
    groups = cached[1]
    if attribute not in groups:
        grouped = collections.defaultdict(list)
        for item in table.all_items():
            found = item.attrs.get(attribute) if isinstance(item, Item) else None
            if found:
                grouped[found].append(item)
        groups[attribute] = grouped
    return groups[attribute].get(value, [])


def _partition_only(original):
    signature = inspect.signature(original)

    @functools.wraps(original)
    def query(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        hash_key = bound.arguments.get("hash_key")
        conditions = bound.arguments.get("hash_key_conditions") or []
        if bound.arguments.get("index_name") and len(conditions) == 1:
            # An index: the items holding the hash key's value (moto checks each again).
            attribute, value = conditions[0]
            candidates = list(_index_partition(self, attribute, value))
        elif bound.arguments.get("index_name") or hash_key is None or not self.range_key_attr:
            return original(self, *args, **kwargs)
        else:
            candidates = list(self.items.get(hash_key, {}).values())
        # moto's query takes its candidates from all_items(); for this call, the partition's.
        self.all_items = lambda: iter(candidates)
        try:
            return original(self, *args, **kwargs)
        finally:
            del self.all_items

    return query


_all_attributes = Queue.attributes.fget
_moto_modules = moto_backends.list_of_moto_modules


class _QueueAttributes(collections.abc.Mapping):
    """A queue's attributes as moto's property computes them, but each only when asked for."""

    def __init__(self, queue):
        self._queue = queue
        self._all = None

    def _load(self):
        if self._all is None:
            self._all = _all_attributes(self._queue)
        return self._all

    def __getitem__(self, key):
        return self._load()[key]

    def __iter__(self):
        return iter(self._load())

    def __len__(self):
        return len(self._load())

    def get(self, key, default=None):
        if self._all is not None:
            return self._all.get(key, default)
        queue = self._queue
        if (
            key in Queue.BASE_ATTRIBUTES
            or (queue.fifo_queue and key in Queue.FIFO_ATTRIBUTES)
            or (queue.kms_master_key_id and key in Queue.KMS_ATTRIBUTES)
        ):
            value = getattr(queue, camelcase_to_underscores(key))
        elif key == "Policy" and queue.policy:
            value = queue.policy
        elif key == "RedrivePolicy" and queue.redrive_policy:
            value = json.dumps(queue.redrive_policy)
        else:
            return default
        return str(value).lower() if isinstance(value, bool) else value


_STRINGS = ("S", "N")
_STRING_SETS = ("SS", "NS")
_SHAPE_SERIALIZE = BaseJSONSerializer._serialize


def _wire_value(serializer, value):
    """An attribute value as moto's serializer writes it (the AttributeValue shape), or None when
    it is not one this knows: then moto's serializer writes it."""
    if not isinstance(value, dict) or len(value) != 1:
        return None
    ((kind, inner),) = value.items()
    if inner is None:
        return None
    if kind in _STRINGS:
        return {kind: inner if inner in ({}, []) else str(inner)}
    if kind in _STRING_SETS and isinstance(inner, list):
        return {kind: [str(v) for v in inner]}
    if kind == "B" and isinstance(inner, (bytes, str)):
        return {kind: serializer._base64(inner)}
    if kind == "BS" and isinstance(inner, list):
        return {kind: [serializer._base64(v) for v in inner]}
    if kind in ("BOOL", "NULL"):
        return {kind: inner}
    if kind == "M" and isinstance(inner, dict):
        written = {}
        for name, nested in inner.items():
            written[name] = _wire_value(serializer, nested)
            if written[name] is None:
                return None
        return {kind: written}
    if kind == "L" and isinstance(inner, list):
        written = [_wire_value(serializer, nested) for nested in inner]
        return None if any(w is None for w in written) else {kind: written}
    return None


def _serialize_attribute_values(self, serialized, value, shape, key):
    if shape.name == "AttributeValue":
        written = _wire_value(self, value)
        if written is not None:
            serialized[self.get_serialized_name(shape, key)] = written
            return
    _SHAPE_SERIALIZE(self, serialized, value, shape, key)


def _dashboard_data(request, full_url, headers):
    """moto's `/moto-api/data.json`, each attribute copied as it is checked, DynamoDB held still."""
    from moto.core.model_instances import model_data

    results = {}
    with _LOCK:
        for service in sorted(model_data):
            results[service] = {}
            for name in sorted(model_data[service]):
                found = []
                for instance in list(model_data[service][name].instances_tracked):
                    fields = {}
                    for attr in dir(instance):
                        if attr.startswith("_"):
                            continue
                        try:
                            fields[attr] = json.loads(json.dumps(getattr(instance, attr)))
                        except (TypeError, AttributeError, ValueError, RuntimeError):
                            pass
                    found.append(fields)
                results[service][name] = found
    return 200, {"Content-Type": "application/javascript"}, json.dumps(results)


def _untracked_new(cls, *args, **kwargs):
    """BaseModel's `__new__` without its append to the dashboard's list."""
    return object.__new__(cls)


moto_backends.list_of_moto_modules = functools.cache(lambda: tuple(_moto_modules()))
logging.getLogger("werkzeug").setLevel(logging.WARNING)
BaseJSONSerializer._serialize = _serialize_attribute_values
Queue.attributes = property(_QueueAttributes)
for _kind in (Item, StreamRecord, Message, FakeKey, FakeDeleteMarker):
    _kind.__new__ = staticmethod(_untracked_new)
dynamodb_models.copy = _CopyModule()
Table.query = _partition_only(Table.query)
moto_api_urls.url_paths["{0}/moto-api/data.json"] = _dashboard_data
DynamoDBBackend.__init__ = _with_tables(DynamoDBBackend.__init__)
DynamoDBBackend.transact_write_items = _transact_with_snapshots(DynamoDBBackend.transact_write_items)
for _name in ("put_item", "get_item", "query", "scan", "update_item", "delete_item", "transact_write_items"):
    setattr(DynamoDBBackend, _name, _serialised(getattr(DynamoDBBackend, _name)))

if __name__ == "__main__":
    main(sys.argv[1:])
