# SPDX-License-Identifier: GPL-2.0
"""Hostile clients of the metrics server (report/live --metrics-listen)

kvm_events_http.py [--host H] [--any-body] [--ca CA --auth USER:PW] [--limit S]
                   PORT PERF_PID PAGE SCENARIO...

While a scraper on a source address of its own (127.0.0.200, or ::1)
scrapes /metrics every 0.2 s, each SCENARIO runs in turn:

  slowloris   50 clients from 127.0.0.2..51, one byte of a request a
              second: each closed by the 5 s deadline, 4.5 to 6.5 s
  flood       1,000 connections at once from 127.0.0.2: perf holds 16
              of them at most (2 and 4 s on), none once their clients
              close
  headers     a request with 1 MiB of headers: a 4xx, or closed, in 6 s
  requests    a garbage request line, the other methods, other paths,
              HEAD, a query string: their exact status and headers
  resets      40 clients that reset after their request, or close
              after half of it: perf lives (no SIGPIPE)
  nonreader   100 pipelined GETs with a 4 KiB receive buffer, never
              read: perf drops the connection in 7 s, and serves on (a
              page larger than the sockets' buffers holds perf up)
  (over TLS, --ca: the scraper's with --auth)
  handshakes  40 TLS clients from 127.0.2.1..40 that stall their
              handshake: each closed by the deadline, 4.5 to 6.5 s
  passwords   16 clients from 127.0.1.1..16 sending wrong passwords, one
              after another, for 3 s: a 401 or no answer, never the page
  users       an unknown user is answered as slowly as a wrong password
              (bcrypt's time), not in half of its time

Every scrape must answer 200 in under 1 s (or --limit), with a
Content-Length that is its body's, the body byte for byte PAGE (or, with
--any-body, a page of metrics).  Prints what it measured; exits 1 on a failure.
"""

import argparse
import base64
import errno
import os
import resource
import select
import socket
import ssl
import struct
import sys
import threading
import time

PAGE_TYPE = "text/plain; version=0.0.4; charset=utf-8"
failed = False


def fail(msg):
    global failed
    failed = True
    print("FAIL: " + msg, flush=True)


def say(msg):
    print(msg, flush=True)


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


# --ca: TLS, trusting that CA; --auth: the scraper's USER:PASSWORD
TLS = None
AUTH = ""


def connect(host, port, source=None, timeout=3.0, rcvbuf=None, tls=True):
    s = socket.socket(family(host), socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if source:
        s.bind((source, 0))
    s.settimeout(timeout)
    s.connect((host, port))
    if TLS and tls:
        try:
            s = TLS.wrap_socket(s, server_hostname=host)
        except OSError:
            s.close()
            raise
    return s


class Answer:
    """One HTTP answer as read: status, headers (lower-case names), body"""

    def __init__(self):
        self.status = None
        self.reason = ""
        self.headers = {}
        self.body = b""
        self.raw = b""
        self.error = None       # why the reading stopped, if not at its end
        self.closed = False     # EOF or reset before a whole answer
        self.extra = b""        # bytes after the answer

    def describe(self):
        if self.status is None:
            return "no answer (%s)" % (self.error or "closed")
        return "%d %s" % (self.status, self.reason)


def read_answer(s, head=False, deadline=5.0):
    """Reads one answer from s, its body by its Content-Length"""
    a = Answer()
    end = time.monotonic() + deadline
    buf = b""

    def more():
        left = end - time.monotonic()
        if left <= 0:
            raise socket.timeout("timed out")
        s.settimeout(left)
        return s.recv(65536)

    try:
        while b"\r\n\r\n" not in buf:
            got = more()
            if not got:
                a.closed = True
                a.raw = buf
                return a
            buf += got
        head_bytes, buf = buf.split(b"\r\n\r\n", 1)
        a.raw = head_bytes
        lines = head_bytes.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            a.error = "no status line: %r" % lines[0][:80]
            return a
        a.status = int(parts[1])
        a.reason = parts[2] if len(parts) > 2 else ""
        for line in lines[1:]:
            name, _, value = line.partition(":")
            a.headers[name.strip().lower()] = value.strip()
        want = 0 if head else int(a.headers.get("content-length", "-1"))
        if want < 0:
            # No length: the body is what comes until the end
            while True:
                got = more()
                if not got:
                    break
                buf += got
            a.body = buf
            return a
        while len(buf) < want:
            got = more()
            if not got:
                a.error = "closed after %d of %d bytes of body" % (len(buf), want)
                break
            buf += got
        a.body, a.extra = buf[:want], buf[want:]
    except (socket.timeout, TimeoutError):
        a.error = "no whole answer in %.1f s" % deadline
    except OSError as e:
        a.closed = True
        a.error = os.strerror(e.errno) if e.errno else str(e)
    return a


def request(host, port, data, source=None, head=False, deadline=5.0):
    """Sends data on a new connection, reads the answer"""
    try:
        s = connect(host, port, source, timeout=deadline)
    except OSError as e:
        a = Answer()
        a.error = "connect: %s" % e
        return a
    try:
        s.sendall(data)
    except OSError:
        pass
    a = read_answer(s, head, deadline)
    if a.status is not None and not a.error:
        # Whatever follows the answer, in 0.3 s
        try:
            s.settimeout(0.3)
            while True:
                got = s.recv(65536)
                if not got:
                    break
                a.extra += got
        except OSError:
            pass
    s.close()
    return a


def get(path="/metrics", method="GET", version="HTTP/1.1", extra="", auth=None):
    """A request; with the scraper's credentials, or auth's ("": none)"""
    auth = AUTH if auth is None else auth
    if auth:
        extra += "Authorization: Basic %s\r\n" % base64.b64encode(auth.encode()).decode()
    return ("%s %s %s\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n"
            % (method, path, version, extra)).encode()


class Scraper(threading.Thread):
    """Scrapes every 0.2 s from its own source address; keeps each result"""

    def __init__(self, host, port, source, page, any_body):
        super().__init__(daemon=True)
        self.host, self.port, self.source = host, port, source
        self.page, self.any_body = page, any_body
        self.results = []       # (start, seconds, why or None)
        self.limit = 1.0
        self.judged = set()
        self.stop = threading.Event()

    def check(self, a):
        if a.error or a.status is None:
            return a.describe() + (": " + a.error if a.error else "")
        if a.status != 200:
            return "status %s" % a.describe()
        length = a.headers.get("content-length")
        if length != str(len(a.body)):
            return "Content-Length %s, body %d bytes" % (length, len(a.body))
        if a.headers.get("content-type") != PAGE_TYPE:
            return "Content-Type %r" % a.headers.get("content-type")
        if self.any_body:
            if not a.body.startswith(b"# HELP kvm_events_"):
                return "the body is no page of metrics: %r" % a.body[:60]
        elif a.body != self.page:
            return "the body (%d bytes) is not the quiet page (%d bytes)" % (
                len(a.body), len(self.page))
        return None

    def run(self):
        while not self.stop.is_set():
            start = time.monotonic()
            a = request(self.host, self.port, get(), self.source, deadline=3.0)
            took = time.monotonic() - start
            why = self.check(a)
            if why is None and took >= self.limit:
                why = "took %.2f s" % took
            self.results.append((start, took, why))
            self.stop.wait(max(0.0, 0.2 - took))

    def judge(self, name, start, end):
        """The scrapes that started in [start, end]: all good, or FAIL"""
        got = [r for r in self.results if start <= r[0] <= end]
        self.judged.update(got)
        bad = [r for r in got if r[2]]
        slowest = max((r[1] for r in got), default=0)
        say("  scrapes meanwhile: %d, %d bad, the slowest %.0f ms"
            % (len(got), len(bad), slowest * 1000))
        for r in bad[:5]:
            fail("%s: a scrape at +%.1f s: %s" % (name, r[0] - start, r[2]))
        # One every 0.2 s, each under the limit: at least one for each
        if len(got) < int((end - start) / self.limit):
            fail("%s: only %d scrapes in %.1f s" % (name, len(got), end - start))


def hex_address(h):
    """An address of /proc/net/tcp{,6}, as text"""
    if len(h) == 8:
        return socket.inet_ntop(socket.AF_INET, bytes.fromhex(h)[::-1])
    raw = b"".join(bytes.fromhex(h[i:i + 8])[::-1] for i in range(0, 32, 8))
    if raw[:12] == b"\0" * 10 + b"\xff\xff":
        return socket.inet_ntop(socket.AF_INET, raw[12:])
    return socket.inet_ntop(socket.AF_INET6, raw)


def perf_peers(pid, port):
    """The remote addresses of perf's connections to its port"""
    try:
        inodes = set()
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    except OSError:
        return None
    peers = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            local, remote, state, inode = f[1], f[2], f[3], f[9]
            if inode not in inodes or state == "0A":     # LISTEN
                continue
            if int(local.split(":")[1], 16) != port:
                continue
            peers.append(hex_address(remote.split(":")[0]))
    return peers


class Watch(threading.Thread):
    """Samples perf's connections every 50 ms: the most from each address"""

    def __init__(self, pid, port):
        super().__init__(daemon=True)
        self.pid, self.port = pid, port
        self.most = {}
        self.total = 0
        self.last = []
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            peers = perf_peers(self.pid, self.port) or []
            self.last = peers
            self.total = max(self.total, len(peers))
            for p in set(peers):
                self.most[p] = max(self.most.get(p, 0), peers.count(p))
            self.stop.wait(0.05)


def listen_overflows():
    """The host's TcpExt ListenOverflows, from /proc/net/netstat"""
    lines = [line.split() for line in open("/proc/net/netstat")]
    for names, values in zip(lines[::2], lines[1::2]):
        if names[0] == "TcpExt:" and "ListenOverflows" in names:
            return int(values[names.index("ListenOverflows")])
    return 0


def wait_closed(socks, starts, until):
    """Reads each socket until EOF or reset, or until time until:
    {socket: seconds from its start to its end}, and what each received"""
    ended, got = {}, {s: b"" for s in socks}
    while len(ended) < len(socks) and time.monotonic() < until:
        left = [s for s in socks if s not in ended]
        r, _, _ = select.select(left, [], [], min(0.1, max(0, until - time.monotonic())))
        for s in r:
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data:
                got[s] += data
            else:
                ended[s] = time.monotonic() - starts[s]
    return ended, got


def slowloris(args, scraper, watch):
    n, request_bytes = 50, get()
    socks, starts, sent = [], {}, {}
    for i in range(n):
        try:
            s = connect(args.host, args.port, "127.0.0.%d" % (2 + i))
        except OSError as e:
            fail("slowloris: client %d cannot connect: %s" % (i, e))
            continue
        starts[s] = time.monotonic()
        sent[s] = 0
        socks.append(s)
    n = len(socks)
    if not n:
        return
    first = min(starts.values())
    ended, got = {}, {s: b"" for s in socks}
    tick = first
    while time.monotonic() < first + 8.0 and len(ended) < n:
        if time.monotonic() >= tick:
            for s in socks:
                if s in ended or sent[s] >= len(request_bytes) - 4:
                    continue
                try:
                    s.send(request_bytes[sent[s]:sent[s] + 1])
                    sent[s] += 1
                except OSError:
                    pass
            tick += 1.0
        e, g = wait_closed([s for s in socks if s not in ended], starts,
                           min(tick, first + 8.0))
        ended.update(e)
        for s, data in g.items():
            got[s] += data
    times = sorted(ended.values())
    say("  %d of %d closed; after %s s (min, median, max); each had sent %d to %d bytes"
        % (len(times), n, ", ".join("%.2f" % t for t in
                                    (times[0], times[len(times) // 2], times[-1]))
           if times else "-", min(sent.values()), max(sent.values())))
    answers = sorted({got[s].split(b"\r\n")[0].decode("latin-1") for s in socks})
    say("  what they received: %s" % (answers or "nothing"))
    if len(times) < n:
        fail("slowloris: %d of %d clients still open after 8 s" % (n - len(times), n))
    early = [t for t in times if t < 4.5]
    late = [t for t in times if t > 6.5]
    if early or late:
        fail("slowloris: %d closed before 4.5 s, %d after 6.5 s (the deadline is 5 s)"
             % (len(early), len(late)))
    for s in socks:
        s.close()


def flood(args, scraper, watch):
    n, src = 1000, "127.0.0.2"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 200), hard))
    socks, starts, pending, refused = [], {}, set(), 0
    watch.most.pop(src, None)
    overflows = listen_overflows()
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((src, 0))
        s.setblocking(False)
        e = s.connect_ex((args.host, args.port))
        if e == errno.ECONNREFUSED:
            refused += 1
            s.close()
            continue
        starts[s] = time.monotonic()
        socks.append(s)
        pending.add(s)
    first = min(starts.values()) if starts else time.monotonic()
    ended, got = {}, {}
    held = {}
    while time.monotonic() < first + 7.0 and len(ended) < len(socks):
        for at in (2, 4):
            if at not in held and time.monotonic() >= first + at:
                held[at] = watch.last.count(src)
        left = [s for s in socks if s not in ended]
        w = [s for s in left if s in pending]
        r, wr, _ = select.select([s for s in left if s not in pending], w, [], 0.1)
        for s in wr:
            e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            pending.discard(s)
            if e:
                ended[s] = time.monotonic() - starts[s]
                if e == errno.ECONNREFUSED:
                    refused += 1
        for s in r:
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data:
                got[s] = got.get(s, b"") + data
            else:
                ended[s] = time.monotonic() - starts[s]
    times = sorted(ended.values())
    within = sum(1 for t in times if t <= 1.0)
    say("  %d connections: %d refused at connect, %d closed in 1 s, %d in 7 s, "
        "%d still connecting, %d still open; perf held %s from %s after 2 and 4 s "
        "(at most %d in a glance, those it was closing too)"
        % (n, refused, within, len(times), len(pending - set(ended)),
           len(socks) - len(ended) - len(pending - set(ended)),
           " and ".join(str(held.get(at, "-")) for at in (2, 4)), src,
           watch.most.get(src, 0)))
    if got:
        say("  what they received: %s" % sorted({v.split(b"\r\n")[0].decode("latin-1")
                                                 for v in got.values()}))
    if max(held.values(), default=0) > 16:
        fail("flood: perf held %s connections from %s after 2 and 4 s, the limit is 16"
             % (" and ".join(str(held.get(at, "-")) for at in (2, 4)), src))
    overflows = listen_overflows() - overflows
    say("  the listen queue overflowed %d times (TcpExtListenOverflows)" % overflows)
    # A client whose handshake's last ACK met a full listen queue is
    # connected, for all it knows, and perf has nothing to close: the
    # kernel retries its SYN-ACK after 1, 3, 7 s...  perf holds those it
    # accepted late until their own deadline; all go when the clients do.
    for s in socks:
        s.close()
    gone = time.monotonic() + 2.0
    while watch.last.count(src) and time.monotonic() < gone:
        time.sleep(0.05)
    if watch.last.count(src):
        fail("flood: perf still holds %d connections from %s 2 s after their clients closed"
             % (watch.last.count(src), src))


def headers(args, scraper, watch):
    pad = b"".join(b"X-Pad-%05d: %s\r\n" % (i, b"a" * 1000) for i in range(1050))
    data = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n" + pad + b"\r\n"
    start = time.monotonic()
    s = connect(args.host, args.port, "127.0.0.60", timeout=6.0)
    sent = 0
    try:
        while sent < len(data):
            sent += s.send(data[sent:sent + 65536])
    except OSError as e:
        say("  sending stopped after %d bytes: %s" % (sent, e))
    left = max(0.1, 6.0 - (time.monotonic() - start))
    a = read_answer(s, deadline=left)
    took = time.monotonic() - start
    s.close()
    say("  %d bytes of headers: %s after %.2f s" % (len(pad), a.describe(), took))
    if a.status == 200 or b"kvm_events_" in a.body:
        fail("headers: 1 MiB of headers got the page")
    elif a.status is not None and a.status not in (400, 413, 431):
        fail("headers: status %s, not 431, 413 or 400" % a.describe())
    elif a.status is None and not a.closed:
        fail("headers: neither answered nor closed in 6 s: %s" % a.error)


def requests(args, scraper, watch):
    page = scraper.page
    cases = [("a garbage request line", b"GARBAGE\r\n\r\n", (400, None))]
    for m in ("POST", "PUT", "DELETE", "OPTIONS", "TRACE", "CONNECT"):
        cases.append(("%s /metrics" % m, get(method=m, extra="Content-Length: 0\r\n"),
                      (405,)))
    for path in ("/", "/other", "/metrics/", "/metricsx"):
        cases.append(("GET %s" % path, get(path), (404,)))
    for name, data, want in cases:
        a = request(args.host, args.port, data, "127.0.0.62")
        status = a.status if a.status is not None and not a.error else None
        extra = ""
        if a.status == 405:
            extra = ", Allow: %s" % a.headers.get("allow")
        say("  %s: %s%s" % (name, a.describe(), extra))
        if status not in want:
            fail("%s: %s, expected %s" % (name, a.describe(),
                                          " or ".join(str(w) if w else "a close"
                                                      for w in want)))
        if b"# HELP kvm_events_" in a.body + a.extra:
            fail("%s: answered with the page" % name)
        if a.status == 405 and a.headers.get("allow") != "GET, HEAD":
            fail("%s: Allow: %r, expected 'GET, HEAD'" % (name, a.headers.get("allow")))
    for name, data in (("GET /metrics?x=1&y", get("/metrics?x=1&y")),
                       ("GET /metrics HTTP/1.0",
                        get(version="HTTP/1.0").replace(b"Host: 127.0.0.1\r\n", b""))):
        a = request(args.host, args.port, data, "127.0.0.62")
        say("  %s: %s, %d bytes" % (name, a.describe(), len(a.body)))
        if a.status != 200 or a.error or (not args.any_body and a.body != page):
            fail("%s: %s, not the page" % (name, a.describe()))
    # HEAD: GET's headers, and no body
    a = request(args.host, args.port, get(method="HEAD"), "127.0.0.62", head=True)
    g = request(args.host, args.port, get(), "127.0.0.62")
    say("  HEAD /metrics: %s, Content-Length %s (GET's %s), Content-Type %r, %d bytes after"
        % (a.describe(), a.headers.get("content-length"), g.headers.get("content-length"),
           a.headers.get("content-type"), len(a.extra)))
    if (a.status != 200 or a.error or a.extra or
            a.headers.get("content-type") != PAGE_TYPE or
            a.headers.get("content-length") != str(len(g.body))):
        fail("HEAD /metrics: %s, Content-Length %s, %d bytes of body; GET's page %d bytes"
             % (a.describe(), a.headers.get("content-length"), len(a.extra), len(g.body)))


def nonreader(args, scraper, watch):
    src = "127.0.0.61"
    s = connect(args.host, args.port, src, rcvbuf=4096)
    start = time.monotonic()
    s.setblocking(False)
    data, sent = get().replace(b"Connection: close\r\n", b"") * 100, 0
    seen = False
    while time.monotonic() < start + 7.0:
        if sent < len(data):
            try:
                sent += s.send(data[sent:])
            except OSError:
                pass
        held = src in watch.last
        seen = seen or held
        if seen and not held:
            break
        time.sleep(0.05)
    gone = time.monotonic() - start
    say("  %d bytes of 100 pipelined GETs sent, none read; perf %s after %.2f s"
        % (sent, "never held it" if not seen else
           "dropped it" if src not in watch.last else "still held it", gone))
    if src in watch.last:
        fail("nonreader: perf still holds the connection of a client that reads nothing "
             "after 7 s (the deadline is 5 s)")
    elif gone < 4.5:
        say("  (dropped before the 5 s deadline)")
    s.close()


def resets(args, scraper, watch):
    """Clients that go away mid-answer: a reset after the request, and a
    half request then a close; an EPIPE, not a SIGPIPE that ends perf"""
    linger = struct.pack("ii", 1, 0)
    for i in range(40):
        # Each from an address of its own: the server's per-address limit
        # is not what is tested here, and a slow one (ASan's) may not have
        # closed the reset ones yet
        s = connect(args.host, args.port, "127.0.3.%d" % (i + 1))
        try:
            if i % 2:
                s.sendall(get()[:10])
                s.shutdown(socket.SHUT_WR)
            else:
                s.sendall(get())
                time.sleep(0.01)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        except OSError:
            pass        # the server was quicker to drop it: perf lives or not below
        s.close()
    time.sleep(0.5)
    say("  40 clients gone mid-request or mid-answer; perf %s"
        % ("lives" if os.path.exists("/proc/%d" % args.pid) else "exited"))


def handshakes(args, scraper, watch):
    """40 TLS clients from 127.0.2.1..40 that stall their handshake: half
    send nothing, half a ClientHello cut short; each closed by the deadline"""
    socks, starts = [], {}
    for i in range(40):
        s = connect(args.host, args.port, "127.0.2.%d" % (i + 1), tls=False)
        if i % 2:
            s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
        starts[s] = time.monotonic()
        socks.append(s)
    ended, _ = wait_closed(socks, starts, min(starts.values()) + 8.0)
    times = sorted(ended.values())
    say("  %d of 40 stalled handshakes closed, after %s s (min, max)"
        % (len(times), "%.2f, %.2f" % (times[0], times[-1]) if times else "-"))
    if len(times) < 40 or times[0] < 4.5 or times[-1] > 6.5:
        fail("handshakes: %d of 40 closed, from %s to %s s; the deadline is 5 s"
             % (len(times), times[0] if times else "-", times[-1] if times else "-"))
    for s in socks:
        s.close()


def passwords(args, scraper, watch):
    """16 clients from 127.0.1.1..16, each a wrong password after another, 3 s"""
    user = AUTH.split(":")[0]
    stop, count = threading.Event(), [0] * 16
    statuses = set()

    def attack(i):
        while not stop.is_set():
            # Checked one at a time, after 2 s of waiting at most, then 503
            a = request(args.host, args.port, get(auth="%s:wrong%d" % (user, count[i])),
                        "127.0.1.%d" % (i + 1), deadline=4.5)
            statuses.add(a.describe())
            count[i] += 1

    threads = [threading.Thread(target=attack, args=(i,), daemon=True) for i in range(16)]
    for t in threads:
        t.start()
    time.sleep(3.0)
    stop.set()
    for t in threads:
        t.join()
    say("  %d wrong passwords in 3 s, answered %s" % (sum(count), sorted(statuses)))
    # 401 once checked, 503 when too many wait for their check: never the
    # page, and never silence, whose connection would wait for ever
    if any(not (w.startswith("401 ") or w.startswith("503 ")) for w in statuses):
        fail("passwords: wrong passwords answered %s, not only 401 or 503" % sorted(statuses))


def median_time(args, data, n=3):
    took = []
    for _ in range(n):
        start = time.monotonic()
        request(args.host, args.port, data, "127.0.0.64")
        took.append(time.monotonic() - start)
    return sorted(took)[n // 2]


def users(args, scraper, watch):
    """An unknown user answers in the time of a known one's wrong password:
    the answer's time tells no one which users there are"""
    user = AUTH.split(":")[0]
    known = median_time(args, get(auth=user + ":wrong"))
    unknown = median_time(args, get(auth="nobody-" + user + ":wrong"))
    say("  a wrong password: %.0f ms; an unknown user: %.0f ms (the medians of 3)"
        % (known * 1000, unknown * 1000))
    if unknown < known / 2:
        fail("users: an unknown user is answered in %.0f ms, a known one's wrong password in "
             "%.0f ms: the time tells which users there are" % (unknown * 1000, known * 1000))


SCENARIOS = {"resets": resets, "handshakes": handshakes, "passwords": passwords,
             "users": users, "slowloris": slowloris, "flood": flood, "headers": headers,
             "requests": requests, "nonreader": nonreader}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("pid", type=int)
    p.add_argument("page")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--any-body", action="store_true")
    p.add_argument("scenarios", nargs="+", choices=sorted(SCENARIOS))
    p.add_argument("--ca", help="TLS, trusting this CA")
    p.add_argument("--auth", default="", help="the scraper's USER:PASSWORD")
    p.add_argument("--limit", type=float, default=1.0,
                   help="the time a scrape must take less than (default: 1 s)")
    args = p.parse_args()
    global TLS, AUTH
    if args.ca:
        TLS = ssl.create_default_context(cafile=args.ca)
    AUTH = args.auth
    page = open(args.page, "rb").read()
    source = "::1" if family(args.host) == socket.AF_INET6 else "127.0.0.200"
    scraper = Scraper(args.host, args.port, source, page, args.any_body)
    scraper.limit = args.limit
    watch = Watch(args.pid, args.port)
    watch.start()
    scraper.start()
    time.sleep(0.5)
    first = time.monotonic()
    for name in args.scenarios:
        say("%s:" % name)
        start = time.monotonic()
        try:
            SCENARIOS[name](args, scraper, watch)
        except OSError as e:
            fail("%s: %s" % (name, e))
        # Each scenario a second at least, for the scraper to have a say
        time.sleep(max(0.0, start + 1.0 - time.monotonic()))
        scraper.judge(name, start, time.monotonic())
        if not os.path.exists("/proc/%d" % args.pid):
            fail("%s: perf exited" % name)
            break
    scraper.stop.set()
    watch.stop.set()
    scraper.join()
    for r in scraper.results:
        if r[2] and r not in scraper.judged:
            fail("a scrape between the scenarios, %.1f s into them: %s"
                 % (r[0] - first, r[2]))
    total = len(scraper.results)
    bad = sum(1 for r in scraper.results if r[2])
    say("scrapes in all: %d, %d bad, the slowest %.0f ms"
        % (total, bad, max((r[1] for r in scraper.results), default=0) * 1000))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
