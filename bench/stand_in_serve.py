#!/usr/bin/env python3
"""A stand-in for `jobset-webhook serve`, to exercise scripts/loadtest where the real server is not
built: the same command line (--bind, --port, --cert-dir with tls.crt and tls.key, --health-port
with GET /readyz), HTTPS keep-alive, and an allowed AdmissionReview echoing the request's uid.
It decides nothing: its figures say nothing about the webhook.

  scripts/loadtest --server-cmd 'bench/stand_in_serve.py --bind 127.0.0.1 --port {port} \
      --cert-dir {cert_dir} --health-port {health_port}'
"""
import argparse
import http.server
import json
import os
import signal
import ssl
import threading


class Review(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        uid = json.loads(body)["request"]["uid"]
        answer = json.dumps({"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1",
                             "response": {"uid": uid, "allowed": True, "status": {"metadata": {}, "code": 200}}},
                            separators=(",", ":")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/readyz" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cert-dir", required=True)
    parser.add_argument("--health-port", type=int)
    args = parser.parse_args()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(args.cert_dir, "tls.crt"), os.path.join(args.cert_dir, "tls.key"))
    server = http.server.ThreadingHTTPServer((args.bind, args.port), Review)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    servers = [server]
    if args.health_port:
        servers.append(http.server.ThreadingHTTPServer((args.bind, args.health_port), Health))
    signal.signal(signal.SIGTERM, lambda *_: [threading.Thread(target=s.shutdown).start() for s in servers])
    threads = [threading.Thread(target=s.serve_forever) for s in servers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
