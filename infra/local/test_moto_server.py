"""The launcher's moto (infra/local/moto_server.py) answers as moto's own server does.

Needs the project's `.venv` (moto[server]); `infra/test` runs it with:

    .venv/bin/python -m unittest infra/local/test_moto_server.py -v

It starts moto's own server and the launcher on free ports, sends both the same DynamoDB requests
(every attribute type, nested maps and lists, empty values, binaries; every call that answers with
items, and the errors that carry one) and compares the answers byte for byte.
"""

import base64
import json
import os
import socket
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCHER = os.path.join(HERE, "moto_server.py")
AUTH = "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0"
BLOB = base64.b64encode(bytes(range(256))).decode()

ITEM = {
    "pk": {"S": "account#1"},
    "sk": {"S": "billing#0001"},
    "gsi1pk": {"S": "due#2026-12-01"},
    "text": {"S": "Mensalidade de dezembro — São Paulo"},
    "blank": {"S": ""},
    "amount": {"N": "1250.10"},
    "big": {"N": "12345678901234567890"},
    "blob": {"B": BLOB},
    "strings": {"SS": ["a", "b"]},
    "numbers": {"NS": ["1", "2.5"]},
    "blobs": {"BS": [BLOB, base64.b64encode(b"x").decode()]},
    "yes": {"BOOL": True},
    "no": {"BOOL": False},
    "nothing": {"NULL": True},
    "empty_map": {"M": {}},
    "empty_list": {"L": []},
    "nested": {
        "M": {
            "items": {"L": [{"M": {"name": {"S": "Aula"}, "qty": {"N": "2"}}}, {"NULL": True}]},
            "flags": {"L": [{"BOOL": False}, {"SS": ["x"]}, {"B": BLOB}]},
        }
    },
}
KEY = {"pk": ITEM["pk"], "sk": ITEM["sk"]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def started(args):
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, *args, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # The same hashing in both: moto keeps a projected set in a Python set, whose order follows it.
        env=dict(os.environ, PYTHONHASHSEED="0"),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=2).read()
            return process, url
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"{args} did not start")
            time.sleep(0.2)


def call(url, action, body):
    """The status and body of a DynamoDB call, as bytes."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": f"DynamoDB_20120810.{action}",
            "Authorization": AUTH,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


class AnswersAsMoto(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.servers = [started(["-m", "moto.server"]), started([LAUNCHER])]
        table = {
            "TableName": "t",
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [
                {"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "gsi1pk")
            ],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "gsi1",
                    "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        }
        for _, url in cls.servers:
            assert call(url, "CreateTable", table)[0] == 200
            for n in range(3):
                item = dict(ITEM, sk={"S": f"billing#000{n + 1}"})
                assert call(url, "PutItem", {"TableName": "t", "Item": item})[0] == 200

    @classmethod
    def tearDownClass(cls):
        for process, _ in cls.servers:
            process.kill()
            process.wait()

    def same(self, action, body):
        (moto_status, moto_body), (ours_status, ours_body) = (call(url, action, body) for _, url in self.servers)
        self.assertEqual((ours_status, ours_body), (moto_status, moto_body))
        return ours_status, json.loads(ours_body)

    def test_reads_answer_every_attribute_type_as_moto(self):
        status, got = self.same("GetItem", {"TableName": "t", "Key": KEY})
        self.assertEqual((status, got["Item"]["blob"]), (200, {"B": BLOB}))
        self.same("GetItem", {"TableName": "t", "Key": KEY, "ProjectionExpression": "nested.items, blobs, amount"})
        self.same("GetItem", {"TableName": "t", "Key": dict(KEY, sk={"S": "none"})})
        self.same("Query", {"TableName": "t", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": ITEM["pk"]}, "Limit": 2})
        self.same("Query", {"TableName": "t", "IndexName": "gsi1", "KeyConditionExpression": "gsi1pk = :g", "ExpressionAttributeValues": {":g": ITEM["gsi1pk"]}, "ScanIndexForward": False})
        self.same("Scan", {"TableName": "t"})
        self.same("BatchGetItem", {"RequestItems": {"t": {"Keys": [KEY, dict(KEY, sk={"S": "billing#0002"})]}}})
        self.same("TransactGetItems", {"TransactItems": [{"Get": {"TableName": "t", "Key": KEY}}]})

    def test_writes_answer_their_items_as_moto(self):
        key = dict(KEY, sk={"S": "billing#0003"})
        self.same("UpdateItem", {"TableName": "t", "Key": key, "UpdateExpression": "SET amount = :a, added = :m",
                                 "ExpressionAttributeValues": {":a": {"N": "9.90"}, ":m": ITEM["nested"]}, "ReturnValues": "ALL_NEW"})
        self.same("PutItem", {"TableName": "t", "Item": dict(ITEM, sk={"S": "billing#0003"}), "ReturnValues": "ALL_OLD"})
        status, got = self.same("PutItem", {"TableName": "t", "Item": ITEM, "ConditionExpression": "attribute_not_exists(pk)",
                                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
        self.assertEqual(status, 400)
        self.same("TransactWriteItems", {"TransactItems": [
            {"Put": {"TableName": "t", "Item": ITEM, "ConditionExpression": "attribute_not_exists(pk)",
                     "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}]})
        self.same("DeleteItem", {"TableName": "t", "Key": key, "ReturnValues": "ALL_OLD"})


if __name__ == "__main__":
    unittest.main()
