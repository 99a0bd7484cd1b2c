#!/usr/bin/env python3
"""A hostile debuginfod server for pfsym's tests, on 127.0.0.1 only.

usage: hostile-debuginfod.py MODE PORTFILE [FILE] [--lifetime S]
Writes its port to PORTFILE, answers GET /buildid/ID/debuginfo as MODE
says, counts the requests for each ID in PORTFILE.count ("ID N" lines),
and stops by itself after S seconds (default 60) or 20000 requests.
  good       FILE's bytes (any build-id)          not-elf   "hello, not ELF"
  wrong-id   FILE's bytes (a file of another id)  truncated FILE's first half,
                                                              Content-Length whole
  huge       Content-Length 100 GB, zeros, fast   endless   zeros without length
  redirects  302 to itself, forever               trickle   1 byte/s of FILE
  404        not found
"""
import os, socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

mode, portfile = sys.argv[1], sys.argv[2]
body_file = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else None
lifetime = 60.0
if "--lifetime" in sys.argv:
    lifetime = float(sys.argv[sys.argv.index("--lifetime") + 1])
body = open(body_file, "rb").read() if body_file else b""
count = 0
per_id = {}
lock = threading.Lock()
deadline = time.monotonic() + lifetime


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        global count
        with lock:
            count += 1
            n = count
            parts = self.path.split("/")
            key = parts[2] if len(parts) > 2 else "-"
            per_id[key] = per_id.get(key, 0) + 1
            with open(portfile + ".count.tmp", "w") as f:
                f.writelines("%s %d\n" % kv for kv in per_id.items())
            os.rename(portfile + ".count.tmp", portfile + ".count")
        if n > 20000 or time.monotonic() > deadline:
            self.close_connection = True
            return
        try:
            self.answer()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def head(self, code, length=None, extra=()):
        self.send_response(code)
        if length is not None:
            self.send_header("Content-Length", str(length))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()

    def answer(self):
        if not self.path.startswith("/buildid/"):
            self.head(404, 0)
            return
        if mode == "404":
            self.head(404, 9)
            self.wfile.write(b"not found")
        elif mode in ("good", "wrong-id"):
            self.head(200, len(body))
            self.wfile.write(body)
        elif mode == "not-elf":
            b = b"hello, not ELF\n"
            self.head(200, len(b))
            self.wfile.write(b)
        elif mode == "truncated":
            self.head(200, len(body))
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif mode in ("huge", "endless"):
            self.close_connection = True
            self.head(200, 100 << 30 if mode == "huge" else None, [("Connection", "close")])
            zeros = b"\0" * 65536
            while time.monotonic() < deadline:
                self.wfile.write(zeros)
        elif mode == "redirects":
            self.head(302, 0, [("Location", self.path)])
        elif mode == "trickle":
            self.head(200, len(body))
            for i in range(len(body)):
                if time.monotonic() > deadline:
                    break
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                time.sleep(1)


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(portfile + ".tmp", portfile)
threading.Thread(target=srv.serve_forever, daemon=True).start()
while time.monotonic() < deadline:
    time.sleep(0.2)
srv.shutdown()
