#!/usr/bin/env python3
"""A minimal OTLP/HTTP traces receiver, for trying `--otlp-endpoint` by hand.

    python3 scripts/otlp-receiver.py --port 4318 --out spans.jsonl

Listens on 127.0.0.1, takes POST /v1/traces (application/x-protobuf, as the
OpenTelemetry protocol specifies), decodes each payload with the protocol's
own Python definitions (`pip install opentelemetry-proto`) and appends one
JSON line per span: its name, kind, start and end (Unix nanoseconds), status
and attributes, with the resource's attributes. Prints the port it listens
on, then runs until stopped. Written apart from prompt-inspector's exporter,
so what it decodes is what any collector would.
"""

import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

MAX_BODY = 64 << 20


def value(v):
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in v.kvlist_value.values}
    return getattr(v, kind) if kind else None


def attributes(kvs):
    return {kv.key: value(kv.value) for kv in kvs}


class Handler(BaseHTTPRequestHandler):
    out = None

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        if self.path != "/v1/traces" or n > MAX_BODY:
            self.send_response(404 if self.path != "/v1/traces" else 413)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        if self.headers.get("content-type") != "application/x-protobuf":
            self.send_response(415)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        req = trace_service_pb2.ExportTraceServiceRequest()
        req.ParseFromString(self.rfile.read(n))
        with open(self.out, "a", encoding="utf-8") as f:
            for rs in req.resource_spans:
                resource = attributes(rs.resource.attributes)
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        f.write(json.dumps({
                            "name": s.name,
                            "kind": s.kind,
                            "start": s.start_time_unix_nano,
                            "end": s.end_time_unix_nano,
                            "status": s.status.code,
                            "status_message": s.status.message,
                            "attributes": attributes(s.attributes),
                            "resource": resource,
                            "scope": ss.scope.name,
                        }) + "\n")
        body = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=4318)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    Handler.out = a.out
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
