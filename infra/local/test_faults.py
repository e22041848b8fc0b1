"""Tests of infra/local/faults.py against a real moto server, through boto3.

Needs a Python with `moto[server]` (which brings boto3): the project's `.venv`, which
`infra/test` makes and runs them with:

    .venv/bin/python -m unittest infra/local/test_faults.py -v

The tests start a moto server and the proxy in front of it on free ports (the proxy with
`python -I -S`: no site-packages, which proves it needs the standard library only) and stop both
at the end. FAULTS_LOAD_CHECK=1 also runs a short load check (20 threads x 200 requests).
"""

import collections
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
import uuid

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

HERE = os.path.dirname(os.path.abspath(__file__))
PROXY = os.path.join(HERE, "faults.py")
TABLE = "faults-test"
ALL_OFF = {
    "throttle_rate": 0,
    "error_rate": 0,
    "late_error_fraction": 0,
    "hold_ms": 0,
    "partition_wcu": 0,
    "duplicate_rate": 0,
    "sqs_error_rate": 0,
    "s3_error_rate": 0,
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, process, what, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not answer on {url}")


def http_json(url, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def stop(process):
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def cpu_seconds(pid):
    """User + system CPU time a process used so far (Linux), 0 where unknown."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def code_of(error):
    return error.response["Error"]["Code"]


def status_of(error):
    return error.response["ResponseMetadata"]["HTTPStatusCode"]


def S(text):
    return {"S": text}


class Stack(unittest.TestCase):
    """A moto server, the proxy in front of it, boto3 clients, a table and a queue."""

    @classmethod
    def setUpClass(cls):
        cls.logs = tempfile.mkdtemp(prefix="faults-test-")
        moto_port, proxy_port = free_port(), free_port()
        cls.moto_url = f"http://127.0.0.1:{moto_port}"
        cls.url = f"http://127.0.0.1:{proxy_port}"
        cls.moto_log = open(os.path.join(cls.logs, "moto.log"), "wb")
        cls.proxy_log = open(os.path.join(cls.logs, "proxy.log"), "wb")
        cls.moto = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(moto_port)],
            stdout=cls.moto_log,
            stderr=subprocess.STDOUT,
        )
        cls.proxy = None
        try:
            wait_for(cls.moto_url + "/moto-api/", cls.moto, "moto server")
            cls.proxy = subprocess.Popen(
                [sys.executable, "-I", "-S", PROXY, "--port", str(proxy_port), "--upstream", cls.moto_url, "--seed", "7", "--verbose"],
                stdout=cls.proxy_log,
                stderr=subprocess.STDOUT,
            )
            wait_for(cls.url + "/_faults", cls.proxy, "faults proxy")
        except Exception:
            stop(cls.proxy)
            stop(cls.moto)
            raise

        session = boto3.session.Session(aws_access_key_id="local", aws_secret_access_key="local", region_name="us-east-1")
        once = Config(retries={"total_max_attempts": 1, "mode": "standard"}, read_timeout=70)
        cls.ddb = session.client("dynamodb", endpoint_url=cls.url, config=once)
        cls.sqs = session.client("sqs", endpoint_url=cls.url, config=once)
        cls.secrets = session.client("secretsmanager", endpoint_url=cls.url, config=once)
        cls.s3 = session.client("s3", endpoint_url=cls.url, config=once.merge(Config(s3={"addressing_style": "path"})))
        cls.ddb.create_table(
            TableName=TABLE,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[
                {"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gsi1pk", "gsi1sk")
            ],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "gsi1",
                    "KeySchema": [
                        {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                        {"AttributeName": "gsi1sk", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        )
        cls.queue = cls.sqs.create_queue(QueueName="faults-test-" + uuid.uuid4().hex[:8])["QueueUrl"]

    @classmethod
    def tearDownClass(cls):
        stop(cls.proxy)
        stop(cls.moto)
        cls.moto_log.close()
        cls.proxy_log.close()

    def setUp(self):
        self.configure(**ALL_OFF)
        status, _ = http_json(self.url + "/_faults/reset", "POST")
        self.assertEqual(status, 200)

    # -- helpers --

    def configure(self, **settings):
        status, answer = http_json(self.url + "/_faults/config", "POST", settings)
        self.assertEqual(status, 200, answer)
        return answer

    def stats(self):
        return http_json(self.url + "/_faults")[1]

    def key(self, pk, sk="0"):
        return {"pk": S(pk), "sk": S(sk)}

    def get(self, pk, sk="0"):
        return self.ddb.get_item(TableName=TABLE, Key=self.key(pk, sk), ConsistentRead=True).get("Item")

    def create_once(self, pk):
        """A transaction putting item `pk` on the condition that it does not exist yet."""
        put = {"TableName": TABLE, "Item": {**self.key(pk), "n": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}
        return [{"Put": put}]

    def put_tx(self, pk, sk="0", **extra):
        return {"Put": {"TableName": TABLE, "Item": {**self.key(pk, sk), **extra}}}

    def in_threads(self, *functions):
        """Runs the functions at once, one thread each; their results (or exceptions)."""
        barrier = threading.Barrier(len(functions))
        results = [None] * len(functions)

        def run(i, function):
            barrier.wait()
            started = time.monotonic()
            try:
                results[i] = ("ok", function(), time.monotonic() - started)
            except Exception as error:  # noqa: BLE001
                results[i] = ("error", error, time.monotonic() - started)

        threads = [threading.Thread(target=run, args=(i, f)) for i, f in enumerate(functions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        return results

    def wait_held(self, timeout=5):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.stats()["held_items"] > 0:
                return
            time.sleep(0.005)
        self.fail("no item was held")


class FaultsProxyTest(Stack):
    # -- 1. random throttling --

    def test_throttle_get_item(self):
        pk = uuid.uuid4().hex
        self.ddb.put_item(TableName=TABLE, Item=self.key(pk))
        self.configure(throttle_rate=1.0)
        with self.assertRaises(ClientError) as caught:
            self.get(pk)
        self.assertEqual(code_of(caught.exception), "ProvisionedThroughputExceededException")
        self.assertEqual(status_of(caught.exception), 400)
        with self.assertRaises(ClientError) as caught:
            self.ddb.query(
                TableName=TABLE, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": S(pk)}
            )
        self.assertEqual(code_of(caught.exception), "ProvisionedThroughputExceededException")
        self.assertEqual(self.stats()["throttles"], 2)

    def test_throttle_transaction(self):
        self.configure(throttle_rate=1.0)
        kinds = set()
        pks = []
        for _ in range(8):
            pk = uuid.uuid4().hex
            pks.append(pk)
            with self.assertRaises(ClientError) as caught:
                self.ddb.transact_write_items(TransactItems=[self.put_tx(pk, "a"), self.put_tx(pk, "b"), self.put_tx(pk, "c")])
            error = caught.exception
            kinds.add(code_of(error))
            if code_of(error) == "TransactionCanceledException":
                codes = [r["Code"] for r in error.response["CancellationReasons"]]
                self.assertEqual(sorted(codes), ["None", "None", "ThrottlingError"], codes)
                self.assertIn("[" + ", ".join(codes) + "]", error.response["Error"]["Message"])
            else:
                self.assertEqual(code_of(error), "ProvisionedThroughputExceededException")
        self.assertIn("TransactionCanceledException", kinds)
        self.configure(throttle_rate=0)
        for pk in pks:
            self.assertIsNone(self.get(pk, "a"), "a throttled transaction must not be applied")

    def test_throttle_batches(self):
        pk = uuid.uuid4().hex
        self.configure(throttle_rate=1.0)
        requests = [{"PutRequest": {"Item": {**self.key(pk, str(i)), "n": {"N": str(i)}}}} for i in range(6)]
        answer = self.ddb.batch_write_item(RequestItems={TABLE: requests})
        unprocessed = answer["UnprocessedItems"].get(TABLE, [])
        self.assertTrue(0 < len(unprocessed) < 6, unprocessed)
        with self.assertRaises(ClientError) as caught:
            self.ddb.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": self.key(pk, "single")}}]})
        self.assertEqual(code_of(caught.exception), "ProvisionedThroughputExceededException")

        self.configure(throttle_rate=0)
        left_out = {r["PutRequest"]["Item"]["sk"]["S"] for r in unprocessed}
        for i in range(6):
            item = self.get(pk, str(i))
            if str(i) in left_out:
                self.assertIsNone(item)
            else:
                self.assertIsNotNone(item)
        self.assertIsNone(self.get(pk, "single"))

        self.configure(throttle_rate=1.0)
        keys = [self.key(pk, str(i)) for i in range(6)]
        answer = self.ddb.batch_get_item(RequestItems={TABLE: {"Keys": keys, "ConsistentRead": True}})
        got = answer["Responses"].get(TABLE, [])
        later = answer["UnprocessedKeys"].get(TABLE, {})
        self.assertTrue(later.get("Keys"), answer)
        self.assertTrue(later.get("ConsistentRead"))
        # every key is either answered (if it exists), or comes back unprocessed
        seen = {i["sk"]["S"] for i in got} | {k["sk"]["S"] for k in later["Keys"]}
        self.assertEqual(seen | left_out, {str(i) for i in range(6)})
        stats = self.stats()
        self.assertEqual(stats["unprocessed_items"], len(unprocessed) + len(later["Keys"]))

    # -- 2. internal errors --

    def test_internal_error(self):
        pk = uuid.uuid4().hex
        self.configure(error_rate=1.0)
        with self.assertRaises(ClientError) as caught:
            self.get(pk)
        self.assertEqual(code_of(caught.exception), "InternalServerError")
        self.assertEqual(status_of(caught.exception), 500)
        with self.assertRaises(ClientError) as caught:
            self.ddb.put_item(TableName=TABLE, Item=self.key(pk))
        self.assertEqual(status_of(caught.exception), 500)
        self.configure(error_rate=0)
        self.assertIsNone(self.get(pk), "an early 500 must not apply the write")
        self.assertEqual(self.stats()["errors_500"], 2)

    def test_late_error_applies_the_write(self):
        pk = uuid.uuid4().hex
        self.configure(error_rate=1.0, late_error_fraction=1.0)
        with self.assertRaises(ClientError) as caught:
            self.ddb.put_item(TableName=TABLE, Item={**self.key(pk), "v": S("late")})
        self.assertEqual(code_of(caught.exception), "InternalServerError")
        self.assertEqual(status_of(caught.exception), 500)
        # reads are never "late": the 500 comes without forwarding
        with self.assertRaises(ClientError):
            self.get(pk)
        self.configure(error_rate=0)
        self.assertEqual(self.get(pk)["v"], S("late"))
        stats = self.stats()
        self.assertEqual(stats["late_errors_500"], 1)
        self.assertEqual(stats["errors_500"], 1)

    def test_late_error_then_retry_with_same_token(self):
        pk = uuid.uuid4().hex
        items = self.create_once(pk)
        token = uuid.uuid4().hex
        self.configure(error_rate=1.0, late_error_fraction=1.0)
        with self.assertRaises(ClientError) as caught:
            self.ddb.transact_write_items(TransactItems=items, ClientRequestToken=token)
        self.assertEqual(status_of(caught.exception), 500)
        self.configure(error_rate=0)
        # the SDK's retry: same token, answered as the first attempt was (applied once)
        answer = self.ddb.transact_write_items(TransactItems=items, ClientRequestToken=token)
        self.assertEqual(answer["ResponseMetadata"]["HTTPStatusCode"], 200)
        self.assertEqual(self.get(pk)["n"], {"N": "1"})
        self.assertEqual(self.stats()["replayed_tokens"], 1)

    # -- 3. transaction conflicts --

    def test_conflicting_transactions(self):
        self.configure(hold_ms=300)
        pk = uuid.uuid4().hex

        def transaction(value):
            return lambda: self.ddb.transact_write_items(TransactItems=[self.put_tx(pk, v=S(value)), self.put_tx(uuid.uuid4().hex)])

        results = self.in_threads(transaction("first"), transaction("second"))
        outcomes = sorted(r[0] for r in results)
        self.assertEqual(outcomes, ["error", "ok"], results)
        ok = next(r for r in results if r[0] == "ok")
        error = next(r for r in results if r[0] == "error")[1]
        self.assertGreaterEqual(ok[2], 0.29, "the transaction is answered after its hold")
        self.assertEqual(code_of(error), "TransactionCanceledException")
        self.assertEqual([r["Code"] for r in error.response["CancellationReasons"]], ["TransactionConflict", "None"])
        self.assertIn("[TransactionConflict, None]", error.response["Error"]["Message"])
        self.assertEqual(self.stats()["conflicts"], 1)

    def test_single_writes_and_reads_during_a_hold(self):
        self.configure(hold_ms=1000)  # room for the six requests below, even on a busy machine
        pk = uuid.uuid4().hex
        self.ddb.put_item(TableName=TABLE, Item={**self.key(pk), "v": S("before")})
        update = {
            "Update": {
                "TableName": TABLE,
                "Key": self.key(pk),
                "UpdateExpression": "SET v = :v",
                "ExpressionAttributeValues": {":v": S("after")},
            }
        }
        worker = threading.Thread(target=lambda: self.ddb.transact_write_items(TransactItems=[update]))
        worker.start()
        try:
            self.wait_held()
            with self.assertRaises(ClientError) as caught:
                self.ddb.put_item(TableName=TABLE, Item={**self.key(pk), "v": S("single")})
            self.assertEqual(code_of(caught.exception), "TransactionConflictException")
            self.assertEqual(status_of(caught.exception), 400)
            with self.assertRaises(ClientError) as caught:
                self.ddb.delete_item(TableName=TABLE, Key=self.key(pk))
            self.assertEqual(code_of(caught.exception), "TransactionConflictException")
            # reads of the committed state are not affected
            self.assertIn(self.get(pk)["v"]["S"], ("before", "after"))
            with self.assertRaises(ClientError) as caught:
                self.ddb.transact_get_items(TransactItems=[{"Get": {"TableName": TABLE, "Key": self.key(pk)}}])
            self.assertEqual(code_of(caught.exception), "TransactionCanceledException")
            self.assertEqual(caught.exception.response["CancellationReasons"][0]["Code"], "TransactionConflict")
            # another item of the same partition is free; in a batch, the held item comes back
            self.ddb.put_item(TableName=TABLE, Item=self.key(pk, "other"))
            answer = self.ddb.batch_write_item(
                RequestItems={TABLE: [{"PutRequest": {"Item": self.key(pk, "batch")}}, {"DeleteRequest": {"Key": self.key(pk)}}]}
            )
            self.assertEqual(answer["UnprocessedItems"], {TABLE: [{"DeleteRequest": {"Key": self.key(pk)}}]})
        finally:
            worker.join(10)
        self.ddb.put_item(TableName=TABLE, Item={**self.key(pk), "v": S("single")})
        self.assertEqual(self.get(pk)["v"], S("single"))
        stats = self.stats()
        self.assertEqual(stats["single_write_conflicts"], 2)
        self.assertEqual(stats["conflicts"], 1)
        self.assertEqual(stats["held_items"], 0)
        self.assertEqual(stats["batch_conflicts"], 1)
        self.assertIsNotNone(self.get(pk, "batch"))

    def test_transactions_on_different_items(self):
        self.configure(hold_ms=300)
        a, b = uuid.uuid4().hex, uuid.uuid4().hex
        results = self.in_threads(
            lambda: self.ddb.transact_write_items(TransactItems=[self.put_tx(a)]),
            lambda: self.ddb.transact_write_items(TransactItems=[self.put_tx(b)]),
        )
        self.assertEqual([r[0] for r in results], ["ok", "ok"], results)
        self.assertIsNotNone(self.get(a))
        self.assertIsNotNone(self.get(b))

    def test_client_request_token(self):
        pk = uuid.uuid4().hex
        items = self.create_once(pk)
        token = uuid.uuid4().hex
        for _ in range(2):
            answer = self.ddb.transact_write_items(TransactItems=items, ClientRequestToken=token)
            self.assertEqual(answer["ResponseMetadata"]["HTTPStatusCode"], 200)
        self.assertEqual(self.stats()["replayed_tokens"], 1)
        # without the token the condition does fail: the second one above was not applied
        with self.assertRaises(ClientError) as caught:
            self.ddb.transact_write_items(TransactItems=items, ClientRequestToken=uuid.uuid4().hex)
        self.assertEqual([r["Code"] for r in caught.exception.response["CancellationReasons"]], ["ConditionalCheckFailed"])
        # the same token with another request
        with self.assertRaises(ClientError) as caught:
            self.ddb.transact_write_items(TransactItems=[self.put_tx(pk, "x")], ClientRequestToken=token)
        self.assertEqual(code_of(caught.exception), "IdempotentParameterMismatchException")
        # a cancelled transaction's token is not remembered
        bad_token = uuid.uuid4().hex
        for _ in range(2):
            with self.assertRaises(ClientError):
                self.ddb.transact_write_items(TransactItems=items, ClientRequestToken=bad_token)

    def test_mixed_faults_keep_transactions_atomic_and_once(self):
        """Many transactions on one hot item, with throttles, lost answers and conflicts, and
        botocore retrying (same ClientRequestToken on each retry): every transaction that was
        applied was applied exactly once, so the counter equals the number of marker items."""
        self.configure(throttle_rate=0.1, error_rate=0.15, late_error_fraction=0.5, hold_ms=20, partition_wcu=1000)
        hot = uuid.uuid4().hex
        retrying = boto3.session.Session(aws_access_key_id="local", aws_secret_access_key="local", region_name="us-east-1").client(
            "dynamodb", endpoint_url=self.url, config=Config(retries={"total_max_attempts": 8, "mode": "standard"}, max_pool_connections=8)
        )
        outcomes = collections.Counter()
        lock = threading.Lock()

        def worker(n):
            for i in range(15):
                try:
                    retrying.transact_write_items(
                        TransactItems=[
                            self.put_tx(hot, f"marker-{n}-{i}"),
                            {
                                "Update": {
                                    "TableName": TABLE,
                                    "Key": self.key(hot, "counter"),
                                    "UpdateExpression": "ADD n :one",
                                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                                }
                            },
                        ]
                    )
                    result = "ok"
                except ClientError as error:
                    result = code_of(error)
                with lock:
                    outcomes[result] += 1

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.configure(**ALL_OFF)
        markers = self.ddb.query(
            TableName=TABLE,
            KeyConditionExpression="pk = :p AND begins_with(sk, :m)",
            ExpressionAttributeValues={":p": S(hot), ":m": S("marker-")},
            ConsistentRead=True,
        )["Count"]
        counter = int((self.get(hot, "counter") or {"n": {"N": "0"}})["n"]["N"])
        stats = self.stats()
        self.assertEqual(counter, markers, (outcomes, stats))
        self.assertGreaterEqual(markers, outcomes["ok"])
        self.assertGreater(outcomes["ok"], 0, outcomes)
        self.assertEqual(stats["held_items"], 0)
        self.assertGreater(stats["conflicts"], 0, stats)
        print(f"\nmixed faults: outcomes {dict(outcomes)}, applied {markers}, replayed {stats['replayed_tokens']}, "
              f"late 500s {stats['late_errors_500']}, conflicts {stats['conflicts']}", file=sys.stderr)

    # -- 4. per-partition write throttling --

    def wait_for_fresh_second(self):
        while time.time() % 1.0 > 0.4:
            time.sleep(0.01)

    def test_partition_write_units(self):
        self.configure(partition_wcu=5)
        pk, other = uuid.uuid4().hex, uuid.uuid4().hex
        data = S("x" * 900)  # 2+32 + 2+1 + 4+900 bytes: one write unit
        self.wait_for_fresh_second()
        for i in range(5):
            self.ddb.put_item(TableName=TABLE, Item={**self.key(pk, str(i)), "data": data})
        with self.assertRaises(ClientError) as caught:
            self.ddb.put_item(TableName=TABLE, Item={**self.key(pk, "5"), "data": data})
        self.assertEqual(code_of(caught.exception), "ProvisionedThroughputExceededException")
        self.ddb.put_item(TableName=TABLE, Item={**self.key(other, "0"), "data": data})
        self.assertIsNone(self.get(pk, "5"))
        stats = self.stats()
        self.assertEqual(stats["partition_throttles"], 1)
        rows = {row["partition"]: row for row in stats["write_units"]}
        self.assertEqual(rows[f"{TABLE}/{pk}"], {"partition": f"{TABLE}/{pk}", "units": 5, "peak_per_second": 5})
        self.assertEqual(rows[f"{TABLE}/{other}"]["units"], 1)
        self.assertEqual(stats["write_units_total"], 6)
        # a new second, a new budget
        time.sleep(1.0 - time.time() % 1.0 + 0.01)
        self.ddb.put_item(TableName=TABLE, Item={**self.key(pk, "5"), "data": data})

    def test_partition_write_units_of_transactions_and_index(self):
        self.configure(partition_wcu=5)
        pk, index_pk = uuid.uuid4().hex, uuid.uuid4().hex
        self.wait_for_fresh_second()
        # three actions on one partition cost 2 units each in a transaction: 6 > 5
        with self.assertRaises(ClientError) as caught:
            self.ddb.transact_write_items(
                TransactItems=[self.put_tx(pk, "a"), self.put_tx(pk, "b"), self.put_tx(uuid.uuid4().hex), self.put_tx(pk, "c")]
            )
        error = caught.exception
        self.assertEqual(code_of(error), "TransactionCanceledException")
        codes = [r["Code"] for r in error.response["CancellationReasons"]]
        self.assertEqual(codes, ["ThrottlingError", "ThrottlingError", "None", "ThrottlingError"])
        # two of them are 4 units: they pass
        self.ddb.transact_write_items(TransactItems=[self.put_tx(pk, "a"), self.put_tx(pk, "b")])
        # items of different partitions that share a gsi1 partition
        for i in range(5):
            self.ddb.put_item(TableName=TABLE, Item={**self.key(uuid.uuid4().hex), "gsi1pk": S(index_pk), "gsi1sk": S(str(i))})
        with self.assertRaises(ClientError) as caught:
            self.ddb.put_item(TableName=TABLE, Item={**self.key(uuid.uuid4().hex), "gsi1pk": S(index_pk), "gsi1sk": S("5")})
        self.assertEqual(code_of(caught.exception), "ProvisionedThroughputExceededException")
        rows = {row["partition"]: row for row in self.stats()["write_units"]}
        self.assertEqual(rows[f"{TABLE}/gsi1:{index_pk}"]["units"], 5)

    def test_partition_write_units_in_batches(self):
        self.configure(partition_wcu=3)
        pk = uuid.uuid4().hex
        self.wait_for_fresh_second()
        requests = [{"PutRequest": {"Item": self.key(pk, str(i))}} for i in range(5)]
        answer = self.ddb.batch_write_item(RequestItems={TABLE: requests})
        self.assertEqual(len(answer["UnprocessedItems"][TABLE]), 2)
        self.assertEqual(self.stats()["partition_throttles"], 2)

    # -- 5. SQS --

    def test_duplicate_delivery(self):
        bodies = {f"message {i} {uuid.uuid4().hex}" for i in range(4)}
        for body in bodies:
            self.sqs.send_message(QueueUrl=self.queue, MessageBody=body)
        self.configure(duplicate_rate=1.0)
        first = self.sqs.receive_message(QueueUrl=self.queue, MaxNumberOfMessages=10, WaitTimeSeconds=2).get("Messages", [])
        self.configure(duplicate_rate=0)
        self.assertTrue(first)
        received = list(first)
        deadline = time.monotonic() + 4.5
        while time.monotonic() < deadline:
            received += self.sqs.receive_message(QueueUrl=self.queue, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
        copies = {}
        for message in received:
            copies.setdefault(message["Body"], []).append(message)
        for message in first:
            if message["ReceiptHandle"].startswith("dup-"):
                continue
            self.assertEqual(len(copies[message["Body"]]), 2, message["Body"])
        stats = self.stats()
        originals = sum(1 for m in first if not m["ReceiptHandle"].startswith("dup-"))
        self.assertEqual(stats["duplicates_immediate"] + stats["duplicates_later"], originals)
        for message in received:
            answer = self.sqs.delete_message(QueueUrl=self.queue, ReceiptHandle=message["ReceiptHandle"])
            self.assertEqual(answer["ResponseMetadata"]["HTTPStatusCode"], 200)
        # the rest of the bodies (if the first answer did not carry them all) and nothing else
        rest = self.sqs.receive_message(QueueUrl=self.queue, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
        for message in rest:
            self.assertIn(message["Body"], bodies)
            self.assertNotIn(message["Body"], copies)
            self.sqs.delete_message(QueueUrl=self.queue, ReceiptHandle=message["ReceiptHandle"])
        self.assertEqual(self.sqs.receive_message(QueueUrl=self.queue, WaitTimeSeconds=1).get("Messages", []), [])
        attributes = self.sqs.get_queue_attributes(
            QueueUrl=self.queue, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
        )["Attributes"]
        self.assertEqual(attributes, {"ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": "0"})

    def test_duplicate_delivered_later(self):
        body = "later " + uuid.uuid4().hex
        self.sqs.send_message(QueueUrl=self.queue, MessageBody=body)
        self.configure(duplicate_rate=1.0)
        # one message asked for: no room for a twin in the answer, so the copy comes later
        first = self.sqs.receive_message(QueueUrl=self.queue, MaxNumberOfMessages=1, WaitTimeSeconds=2)["Messages"]
        self.configure(duplicate_rate=0)
        self.assertEqual([m["Body"] for m in first], [body])
        self.sqs.delete_message(QueueUrl=self.queue, ReceiptHandle=first[0]["ReceiptHandle"])
        again = []
        deadline = time.monotonic() + 4.5
        while not again and time.monotonic() < deadline:
            again = self.sqs.receive_message(QueueUrl=self.queue, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
        self.assertEqual([m["Body"] for m in again], [body])
        self.assertNotEqual(again[0]["MessageId"], first[0]["MessageId"])
        self.sqs.delete_message(QueueUrl=self.queue, ReceiptHandle=again[0]["ReceiptHandle"])
        stats = self.stats()
        self.assertEqual((stats["duplicates_later"], stats["duplicates_immediate"], stats["duplicates_later_failed"]), (1, 0, 0))

    def test_forged_receipt_handles(self):
        self.sqs.send_message(QueueUrl=self.queue, MessageBody="real")
        real = self.sqs.receive_message(QueueUrl=self.queue, WaitTimeSeconds=1)["Messages"][0]["ReceiptHandle"]
        forged = "dup-" + uuid.uuid4().hex
        self.assertEqual(self.sqs.delete_message(QueueUrl=self.queue, ReceiptHandle=forged)["ResponseMetadata"]["HTTPStatusCode"], 200)
        self.sqs.change_message_visibility(QueueUrl=self.queue, ReceiptHandle=forged, VisibilityTimeout=0)
        answer = self.sqs.change_message_visibility_batch(
            QueueUrl=self.queue, Entries=[{"Id": "f", "ReceiptHandle": forged, "VisibilityTimeout": 0}]
        )
        self.assertEqual(answer["Successful"], [{"Id": "f"}])
        answer = self.sqs.delete_message_batch(
            QueueUrl=self.queue, Entries=[{"Id": "r", "ReceiptHandle": real}, {"Id": "f", "ReceiptHandle": forged}]
        )
        self.assertEqual(sorted(e["Id"] for e in answer["Successful"]), ["f", "r"])
        self.assertEqual(answer.get("Failed", []), [])
        self.assertEqual(self.sqs.receive_message(QueueUrl=self.queue, WaitTimeSeconds=1).get("Messages", []), [])

    def test_sqs_internal_error(self):
        self.configure(sqs_error_rate=1.0)
        with self.assertRaises(ClientError) as caught:
            self.sqs.send_message(QueueUrl=self.queue, MessageBody="never")
        self.assertEqual(status_of(caught.exception), 500)
        self.assertEqual(code_of(caught.exception), "InternalError")
        self.configure(sqs_error_rate=0)
        self.assertEqual(self.sqs.receive_message(QueueUrl=self.queue, WaitTimeSeconds=0).get("Messages", []), [])
        self.assertEqual(self.stats()["sqs_errors_500"], 1)

    def test_s3_internal_error(self):
        bucket = "faults-" + uuid.uuid4().hex[:12]
        self.s3.create_bucket(Bucket=bucket)
        self.configure(s3_error_rate=1.0)
        for _ in range(12):  # some of them stored before the error, as a lost answer
            with self.assertRaises(ClientError) as caught:
                self.s3.put_object(Bucket=bucket, Key="remittances/a.rem", Body=b"file")
            self.assertEqual(status_of(caught.exception), 500)
            self.assertEqual(code_of(caught.exception), "InternalError")
        with self.assertRaises(ClientError):
            self.s3.get_object(Bucket=bucket, Key="remittances/a.rem")
        stats = self.stats()
        self.configure(s3_error_rate=0)
        self.assertEqual(stats["s3_errors_500"], 13)
        self.assertGreater(stats["late_s3_errors_500"], 0)
        self.assertEqual(self.s3.get_object(Bucket=bucket, Key="remittances/a.rem")["Body"].read(), b"file")

    # -- everything off --

    def test_pass_through(self):
        self.configure(hold_ms=20, partition_wcu=1000)  # the defaults, which do not fire here
        pk = uuid.uuid4().hex
        self.ddb.put_item(TableName=TABLE, Item={**self.key(pk), "gsi1pk": S("L" + pk), "gsi1sk": S("1"), "v": {"N": "1"}})
        self.ddb.update_item(
            TableName=TABLE, Key=self.key(pk), UpdateExpression="SET v = v + :one", ExpressionAttributeValues={":one": {"N": "1"}}
        )
        self.assertEqual(self.get(pk)["v"], {"N": "2"})
        query = self.ddb.query(TableName=TABLE, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": S(pk)})
        self.assertEqual(query["Count"], 1)
        index = self.ddb.query(
            TableName=TABLE, IndexName="gsi1", KeyConditionExpression="gsi1pk = :p", ExpressionAttributeValues={":p": S("L" + pk)}
        )
        self.assertEqual(index["Count"], 1)
        self.ddb.transact_write_items(
            TransactItems=[
                self.put_tx(pk, "t1"),
                {"ConditionCheck": {"TableName": TABLE, "Key": self.key(pk), "ConditionExpression": "attribute_exists(pk)"}},
            ]
        )
        got = self.ddb.transact_get_items(TransactItems=[{"Get": {"TableName": TABLE, "Key": self.key(pk, "t1")}}])
        self.assertEqual(got["Responses"][0]["Item"], self.key(pk, "t1"))
        with self.assertRaises(ClientError) as caught:  # moto's own errors are relayed unchanged
            self.ddb.put_item(TableName=TABLE, Item=self.key(pk), ConditionExpression="attribute_not_exists(pk)")
        self.assertEqual(code_of(caught.exception), "ConditionalCheckFailedException")
        self.ddb.delete_item(TableName=TABLE, Key=self.key(pk))
        self.assertIsNone(self.get(pk))

        self.sqs.send_message(QueueUrl=self.queue, MessageBody="hello", MessageAttributes={"kind": {"DataType": "String", "StringValue": "k"}})
        messages = self.sqs.receive_message(QueueUrl=self.queue, WaitTimeSeconds=1, MessageAttributeNames=["All"])["Messages"]
        self.assertEqual([m["Body"] for m in messages], ["hello"])
        self.assertEqual(messages[0]["MessageAttributes"]["kind"]["StringValue"], "k")
        self.sqs.delete_message(QueueUrl=self.queue, ReceiptHandle=messages[0]["ReceiptHandle"])

        name = "faults-" + uuid.uuid4().hex
        self.secrets.create_secret(Name=name, SecretString="s3cr3t")
        self.assertEqual(self.secrets.get_secret_value(SecretId=name)["SecretString"], "s3cr3t")

        with urllib.request.urlopen(self.url + "/moto-api/", timeout=10) as response:
            self.assertEqual(response.status, 200)

        stats = self.stats()
        injected = {k: v for k, v in stats.items() if isinstance(v, int) and k not in ("forwarded", "write_units_total", "held_items", "remembered_tokens", "seed") and v}
        self.assertEqual(injected, {})
        self.assertGreaterEqual(stats["forwarded"], 15)

    def test_control_errors(self):
        status, answer = http_json(self.url + "/_faults/config", "POST", {"throttle_rate": 2})
        self.assertEqual(status, 400, answer)
        status, answer = http_json(self.url + "/_faults/config", "POST", {"no_such": 1})
        self.assertEqual(status, 400, answer)
        self.assertEqual(self.configure(hold_ms=25)["hold_ms"], 25)


class CommandLineTest(unittest.TestCase):
    def test_environment_flags_and_sigterm(self):
        port = free_port()
        environment = dict(os.environ, FAULT_THROTTLE_RATE="0.5", FAULT_HOLD_MS="77", FAULT_PORT=str(port))
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", PROXY, "--throttle-rate", "0.25", "--upstream", "http://127.0.0.1:9"],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            line = process.stderr.readline().decode()
            self.assertEqual(line.strip(), f"faults proxy on 127.0.0.1:{port} -> http://127.0.0.1:9")
            settings = http_json(f"http://127.0.0.1:{port}/_faults")[1]["settings"]
            self.assertEqual(settings["throttle_rate"], 0.25)  # the flag wins
            self.assertEqual(settings["hold_ms"], 77)  # from the environment
            self.assertEqual(settings["error_rate"], 0.005)  # the default
            process.send_signal(signal.SIGTERM)
            self.assertEqual(process.wait(10), 0)
        finally:
            stop(process)
            process.stderr.close()


@unittest.skipUnless(os.environ.get("FAULTS_LOAD_CHECK"), "set FAULTS_LOAD_CHECK=1 for the load check")
class LoadCheck(Stack):
    """20 threads x 200 GetItem/PutItem through the proxy, all faults off (and straight to moto,
    for comparison)."""

    def test_load(self):
        threads, per_thread = 20, 200
        failures = []

        def work(client, n):
            pk = f"load-{n}-{uuid.uuid4().hex}"
            try:
                for i in range(per_thread):
                    if i % 2 == 0:
                        client.put_item(TableName=TABLE, Item={**self.key(pk, str(i)), "data": S("x" * 200)})
                    else:
                        client.get_item(TableName=TABLE, Key=self.key(pk, str(i - 1)))
            except Exception as error:  # noqa: BLE001
                failures.append(error)

        total = threads * per_thread
        for name, url in (("moto directly", self.moto_url), ("the proxy", self.url)):
            client = boto3.session.Session(aws_access_key_id="local", aws_secret_access_key="local", region_name="us-east-1").client(
                "dynamodb", endpoint_url=url, config=Config(max_pool_connections=threads, retries={"total_max_attempts": 1})
            )
            failures.clear()
            cpu_before = cpu_seconds(self.proxy.pid), cpu_seconds(self.moto.pid)
            started = time.monotonic()
            workers = [threading.Thread(target=work, args=(client, n)) for n in range(threads)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            elapsed = time.monotonic() - started
            self.assertEqual(failures, [])
            proxy_cpu = cpu_seconds(self.proxy.pid) - cpu_before[0]
            moto_cpu = cpu_seconds(self.moto.pid) - cpu_before[1]
            print(
                f"\nload through {name}: {total} requests in {elapsed:.1f} s: {total / elapsed:.0f} requests/s "
                f"(CPU per request: proxy {1000 * proxy_cpu / total:.2f} ms, moto {1000 * moto_cpu / total:.2f} ms)",
                file=sys.stderr,
            )
        self.assertEqual(self.stats()["forwarded"], total)


if __name__ == "__main__":
    unittest.main()
