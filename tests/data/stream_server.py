#!/usr/bin/env python3
"""A small HTTP server for tests/integration/streams.sh, on 127.0.0.1 only.

    stream_server.py DIR PORTFILE

Serves, until killed:
  /file/NAME     DIR/NAME as a stream (no Content-Length, sent in chunks)
  /icy/NAME      DIR/NAME with ICY metadata every 4096 bytes when the client
                 asks (Icy-MetaData: 1): StreamTitle 'First Title' for the
                 first half of the file, 'Second Title' after
  /drop/NAME     DIR/NAME, but the first connection is cut after 64 KiB; a
                 reconnect (Range: bytes=N-) gets the rest
  /silent        headers, then nothing (a stream that never sends audio)
  /stall/NAME    the first half of DIR/NAME, then nothing (a stream that
                 stalls mid-play; a reconnect gets headers only)
  /half/NAME     DIR/NAME with its full Content-Length, cut after half on
                 every connection (a reconnect gets nothing more)
  /live/NAME     DIR/NAME over and over, about 20 KiB a second, never ending
                 and ignoring Range (a station: no offsets, no length)
  /garbage       random bytes labelled audio/mpeg
  /list/NAME     DIR/NAME as a radio playlist: audio/x-mpegurl for .m3u and
                 .m3u8, else audio/x-scpls (a station's /listen)
  /redirect/REST a 302 to /REST (a station that moved)
A '/' after NAME is ignored (/live/NAME/ is /live/NAME: a station's URL that
ends in '/', as http://host:8000/ does).
A query ?name=NAME (percent-encoded bytes, Latin-1 allowed) adds the header
icy-name: NAME to the answer of /icy/ and /live/ (a station's name); in
/icy/, ?t1=TITLE (the same) is sent instead of 'First Title'.
The chosen port is written to PORTFILE.
"""
import os
import random
import re
import socketserver
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

DIR = sys.argv[1]
METAINT = 4096
dropped = set()


def meta_block(title):
    if isinstance(title, str):
        title = title.encode()
    text = b"StreamTitle='" + title + b"';"
    n = (len(text) + 15) // 16
    return bytes([n]) + text.ljust(n * 16, b"\0")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def query_bytes(self, key):
        q = urllib.parse.urlsplit(self.raw_path).query
        for part in q.split("&"):
            if part.startswith(key + "="):
                return urllib.parse.unquote_to_bytes(part[len(key) + 1:])
        return None

    def station_headers(self):
        q = urllib.parse.urlsplit(self.raw_path).query
        for part in q.split("&"):
            if part.startswith("name="):
                name = urllib.parse.unquote_to_bytes(part[5:])
                return [("icy-name", name.decode("latin-1"))]
        return []

    def send_audio(self, data, start=0, headers=()):
        self.send_response(200 if start == 0 else 206)
        self.send_header("Content-Type", "audio/flac")
        for k, v in self.station_headers():
            self.send_header(k, v)
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        return data

    def do_GET(self):
        self.raw_path = self.path
        path = self.path.split("?", 1)[0]
        if path.count("/") > 2:  # /live/NAME/: a station's URL ending in '/'
            path = path.rstrip("/")
        try:
            if path.startswith("/redirect/"):
                self.send_response(302)
                self.send_header("Location", self.raw_path[9:])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            elif path.startswith("/file/"):
                data = open(os.path.join(DIR, os.path.basename(path[6:])), "rb").read()
                self.send_audio(data)
                for i in range(0, len(data), 8192):
                    self.wfile.write(data[i:i + 8192])
                    self.wfile.flush()
            elif path.startswith("/icy/"):
                data = open(os.path.join(DIR, os.path.basename(path[5:])), "rb").read()
                icy = self.headers.get("Icy-MetaData") == "1"
                self.send_audio(data, headers=[("icy-metaint", str(METAINT))] if icy else [])
                for n, i in enumerate(range(0, len(data), METAINT)):
                    self.wfile.write(data[i:i + METAINT])
                    if icy and i + METAINT < len(data):
                        title = "First Title" if i < len(data) // 2 else "Second Title"
                        self.wfile.write(meta_block(self.query_bytes("t1") if
                                                    title == "First Title" and self.query_bytes("t1") is not None
                                                    else title))
                    self.wfile.flush()
                    time.sleep(0.01)
            elif path.startswith("/drop/"):
                name = os.path.basename(path[6:])
                data = open(os.path.join(DIR, name), "rb").read()
                m = re.match(r"bytes=(\d+)-", self.headers.get("Range", ""))
                start = int(m.group(1)) if m else 0
                self.send_audio(data[start:], start,
                                headers=[("Content-Length", str(len(data) - start)),
                                         ("Accept-Ranges", "bytes")] +
                                ([("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))]
                                 if start else []))
                if name not in dropped:
                    dropped.add(name)
                    self.wfile.write(data[start:start + 65536])
                    self.wfile.flush()
                    self.connection.shutdown(2)
                    return
                self.wfile.write(data[start:])
            elif path.startswith("/stall/"):
                data = open(os.path.join(DIR, os.path.basename(path[7:])), "rb").read()
                self.send_audio(data)
                if self.headers.get("Range", "bytes=0-") == "bytes=0-":
                    self.wfile.write(data[:len(data) // 2])
                self.wfile.flush()
                time.sleep(120)
            elif path.startswith("/half/"):
                data = open(os.path.join(DIR, os.path.basename(path[6:])), "rb").read()
                if self.headers.get("Range", "bytes=0-") != "bytes=0-":
                    self.send_error(503)
                    return
                self.send_audio(data, headers=[("Content-Length", str(len(data)))])
                self.wfile.write(data[:len(data) // 2])
                self.wfile.flush()
                self.connection.shutdown(2)
            elif path == "/silent":
                self.send_audio(b"")
                self.wfile.flush()
                time.sleep(120)
            elif path.startswith("/list/"):
                name = os.path.basename(path[6:])
                data = open(os.path.join(DIR, name), "rb").read()
                m3u = name.endswith((".m3u", ".m3u8"))
                self.send_response(200)
                self.send_header("Content-Type", "audio/x-mpegurl" if m3u else "audio/x-scpls")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            elif path.startswith("/live/"):
                data = open(os.path.join(DIR, os.path.basename(path[6:])), "rb").read()
                self.send_response(200)
                self.send_header("Content-Type", "audio/mpeg")
                for k, v in self.station_headers():
                    self.send_header(k, v)
                self.end_headers()
                while True:
                    for i in range(0, len(data), 4096):
                        self.wfile.write(data[i:i + 4096])
                        self.wfile.flush()
                        time.sleep(0.2)
            elif path == "/garbage":
                self.send_response(200)
                self.send_header("Content-Type", "audio/mpeg")
                self.end_headers()
                rnd = random.Random(7)
                for _ in range(256):
                    self.wfile.write(bytes(rnd.getrandbits(8) for _ in range(1024)))
            else:
                self.send_error(404)
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


srv = Server(("127.0.0.1", 0), Handler)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
srv.serve_forever()
