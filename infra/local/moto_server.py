"""Starts the moto server with DynamoDB writes made atomic.

moto serves requests on several threads and its DynamoDB backend has no lock, so two conditional
writes (or transactions) on the same item can both pass their condition check. Real DynamoDB never
allows that, and our uniqueness guards depend on it. Serialising the backend's reads and writes
makes the emulator faithful; other services (SQS long polls) stay concurrent.

Usage: python moto_server.py -H 127.0.0.1 -p 4566
"""

import functools
import sys
import threading

from moto.dynamodb.models import DynamoDBBackend
from moto.server import main

_LOCK = threading.RLock()


def _serialised(method):
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with _LOCK:
            return method(self, *args, **kwargs)

    return locked


for _name in ("put_item", "get_item", "query", "update_item", "delete_item", "transact_write_items"):
    setattr(DynamoDBBackend, _name, _serialised(getattr(DynamoDBBackend, _name)))

if __name__ == "__main__":
    main(sys.argv[1:])
