#!/usr/bin/env python3
"""Runs localstripe (PyPI, GPL; installed in its own venv by infra/lib.sh) as its own process on
127.0.0.1 alone, from scratch: its `--port` entry point listens on every interface and loads what
an earlier run left in /tmp. Nothing of it is linked into the service.

    .local/stripe-venv/bin/python localstripe_run.py --port 8420
"""

import argparse

from aiohttp import web
from localstripe import server


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    web.run_app(server.app, host="127.0.0.1", port=args.port, print=None)


if __name__ == "__main__":
    main()
