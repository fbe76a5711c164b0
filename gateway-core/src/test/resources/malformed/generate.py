#!/usr/bin/env python3
"""Writes the malformed-request corpus replayed by MalformedCorpusIT: one raw HTTP/1.1 request per *.http file.

Every request here must be refused with a 4xx by a gateway whose policy has one tenant key, sk-corpus, short
read timeouts and max_body_bytes 64KiB (see MalformedCorpusIT). Re-run after editing (python3 generate.py, from this directory); the files are committed, so a
change shows in review. Names: NNN-category-what.http.
"""
import os

KEY = "Authorization: Bearer sk-corpus"
CHAT = b'{"model":"llama-3.1-8b","messages":[{"role":"user","content":"hi"}],"max_tokens":3}'
out = []


def add(name, data):
    out.append((name, data if isinstance(data, bytes) else data.encode("latin-1")))


def req(method="POST", target="/v1/chat/completions", version="HTTP/1.1", headers=None, body=CHAT,
        length=True, ctype="application/json", auth=True, host="Host: gateway"):
    lines = [f"{method} {target} {version}".encode("latin-1") if isinstance(method, str) else method]
    hs = []
    if host is not None:
        hs.append(host)
    if auth:
        hs.append(KEY)
    if ctype is not None:
        hs.append("Content-Type: " + ctype)
    if length and body is not None:
        hs.append("Content-Length: %d" % len(body))
    hs += headers or []
    data = lines[0] + b"\r\n" + b"".join((h.encode("latin-1") if isinstance(h, str) else h) + b"\r\n" for h in hs)
    return data + b"\r\n" + (body or b"")


def chunked(chunks, trailers=b""):
    return b"".join(chunks) + b"0\r\n" + trailers + b"\r\n"


GOOD_CHUNKED = b"%x\r\n" % len(CHAT) + CHAT + b"\r\n"

# --- smuggling: Content-Length with Transfer-Encoding, two lengths, transfer-coding variants
for te in ["chunked", " chunked", "chunked ", "Chunked", "CHUNKED", "chunked, identity", "identity, chunked",
           "gzip, chunked", "chunked, chunked", "xchunked", "chunked;q=1", "identity", "gzip", "deflate", "\tchunked",
           "chunked\t", "chunk", "ch unked", ",chunked", "chunked,"]:
    add("smuggle-cl-te-" + te.strip().replace(" ", "_").replace(",", "+").replace(";", "_").replace("\t", "tab"),
        req(headers=["Transfer-Encoding: " + te], body=chunked([GOOD_CHUNKED])))
for te in ["chunked", "gzip, chunked", "chunked, identity", "identity"]:
    add("smuggle-te-only-" + te.replace(" ", "_").replace(",", "+"),
        req(length=False, headers=["Transfer-Encoding: " + te], body=chunked([GOOD_CHUNKED]))
        if te != "chunked" else req(length=False, headers=["Transfer-Encoding: chunked", "Content-Length: 5"],
                                     body=chunked([GOOD_CHUNKED])))
add("smuggle-te-before-cl", req(length=False, headers=["Transfer-Encoding: chunked", "Content-Length: %d" % len(CHAT)],
                                body=CHAT))
add("smuggle-two-te-headers", req(length=False, headers=["Transfer-Encoding: chunked", "Transfer-Encoding: identity"],
                                  body=chunked([GOOD_CHUNKED])))
add("smuggle-two-te-chunked", req(length=False, headers=["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"],
                                  body=chunked([GOOD_CHUNKED])))
add("smuggle-te-space-before-colon", req(length=False, headers=["Transfer-Encoding : chunked"],
                                         body=chunked([GOOD_CHUNKED])))
add("smuggle-te-tab-before-colon", req(length=False, headers=["Transfer-Encoding\t: chunked"],
                                       body=chunked([GOOD_CHUNKED])))
add("smuggle-cl-space-before-colon", req(length=False, headers=["Content-Length : %d" % len(CHAT)]))
add("smuggle-te-underscore-and-cl", req(headers=["Transfer_Encoding: chunked"], body=b"0\r\n\r\n"))
add("smuggle-te-leading-space-line", req(length=False, headers=[" Transfer-Encoding: chunked"],
                                         body=chunked([GOOD_CHUNKED])))
add("smuggle-te-http10", req(version="HTTP/1.0", length=False, headers=["Transfer-Encoding: chunked"],
                             body=chunked([GOOD_CHUNKED])))
add("smuggle-te-vertical-tab", req(length=False, headers=["Transfer-Encoding:\x0bchunked"],
                                   body=chunked([GOOD_CHUNKED])))
for a, b in [(len(CHAT), len(CHAT)), (len(CHAT), 2), (2, len(CHAT)), (0, len(CHAT))]:
    add(f"smuggle-two-cl-{a}-{b}", req(length=False, headers=[f"Content-Length: {a}", f"Content-Length: {b}"]))
add("smuggle-cl-list", req(length=False, headers=[f"Content-Length: {len(CHAT)}, {len(CHAT)}"]))
for cl in ["+%d" % len(CHAT), "-1", "0x10", "1_0", "12 34", "", "1e2", "%d.0" % len(CHAT), "99999999999999999999999",
           "abc", "\x00%d" % len(CHAT), "%d\x00" % len(CHAT)]:
    add("cl-bad-" + (cl.encode("latin-1").hex() if not cl.isalnum() else cl)[:24],
        req(length=False, headers=["Content-Length: " + cl]))
add("smuggle-pipelined-get-in-body", req(headers=["Transfer-Encoding: chunked"],
                                         body=b"0\r\n\r\nGET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"))

# --- chunked bodies: sizes, extensions, trailers
for size in [b"zz", b"-1", b"0x5", b"+5", b" 5", b"5 ", b"ffffffffffffffffff", b"5;", b"", b"5\x00", b"1g",
             b"fffffffffffffffffffffffffffffffff"]:
    add("chunk-size-" + (size.hex() or "empty"), req(length=False, headers=["Transfer-Encoding: chunked"],
                                                     body=size + b"\r\n{\"a\":\r\n0\r\n\r\n"))
add("chunk-data-longer-than-size", req(length=False, headers=["Transfer-Encoding: chunked"],
                                       body=b"2\r\n" + CHAT + b"\r\n0\r\n\r\n"))
add("chunk-missing-crlf-after-data", req(length=False, headers=["Transfer-Encoding: chunked"],
                                         body=b"%x\r\n" % len(CHAT) + CHAT + b"0\r\n\r\n"))
add("chunk-lf-only-lines", req(length=False, headers=["Transfer-Encoding: chunked"],
                               body=b"%x\n" % len(CHAT) + CHAT + b"\n0\n\n"))
add("chunk-ext-nul", req(length=False, headers=["Transfer-Encoding: chunked"],
                         body=b"%x;a=\x00\r\n" % len(CHAT) + CHAT + b"\r\n0\r\n\r\n"))
add("chunk-ext-huge", req(length=False, headers=["Transfer-Encoding: chunked"],
                          body=b"%x;" % len(CHAT) + b"a" * 70000 + b"\r\n" + CHAT + b"\r\n0\r\n\r\n"))
add("chunk-ext-bare-cr", req(length=False, headers=["Transfer-Encoding: chunked"],
                             body=b"%x;a\rb\r\n" % len(CHAT) + CHAT + b"\r\n0\r\n\r\n"))
add("chunk-trailer-nul", req(length=False, headers=["Transfer-Encoding: chunked"],
                             body=chunked([GOOD_CHUNKED], b"X-T: a\x00b\r\n")))
add("chunk-trailer-fold", req(length=False, headers=["Transfer-Encoding: chunked"],
                              body=chunked([GOOD_CHUNKED], b"X-T: a\r\n b\r\n")))
add("chunk-trailer-no-colon", req(length=False, headers=["Transfer-Encoding: chunked"],
                                  body=chunked([GOOD_CHUNKED], b"garbage\r\n")))
add("chunk-trailer-huge", req(length=False, headers=["Transfer-Encoding: chunked"],
                              body=chunked([GOOD_CHUNKED], b"X-T: " + b"a" * 70000 + b"\r\n")))
add("chunk-no-last-chunk", req(length=False, headers=["Transfer-Encoding: chunked"], body=GOOD_CHUNKED))
add("chunk-over-body-limit", req(length=False, headers=["Transfer-Encoding: chunked"],
                                 body=b"".join(b"8000\r\n" + b" " * 0x8000 + b"\r\n" for _ in range(3)) + b"0\r\n\r\n"))
add("chunk-empty-json", req(length=False, headers=["Transfer-Encoding: chunked"], body=b"0\r\n\r\n"))

# --- obs-fold
for h in ["X-Note: a\r\n b", "X-Note: a\r\n\tb", KEY + "\r\n x", "Content-Type: application/json\r\n ; charset=utf-8",
          "X-Request-Id: abc\r\n def", "Host2: a\r\n\r\n b"[:-5]]:
    add("obs-fold-" + str(len(out)), req(headers=[h]))

# --- control characters and NULs in header names and values
for c in ["\x00", "\x01", "\x07", "\x0b", "\x0c", "\x1b", "\x7f", "\r", "\x08"]:
    add("ctl-value-%02x" % ord(c), req(headers=["X-Note: a" + c + "b"]))
    add("ctl-name-%02x" % ord(c), req(headers=["X" + c + "Note: ab"]))
for h in ["X Note: a", ": a", "X-Note a", "X-Note\t: a", "X(Note): a", "X@Note: a", "X-Nöte: a", "\x00: a",
          "X-Note:" + "\x00" * 3, "[X]: a", "X\"Note: a", "X-Note;: a"]:
    add("header-name-bad-" + h[:12].encode("latin-1").hex(), req(headers=[h]))
add("ctl-in-authorization", req(auth=False, headers=["Authorization: Bearer sk-\x00corpus"]))
add("ctl-in-host", req(host="Host: gate\x00way"))
add("bare-cr-line-end", b"POST /v1/chat/completions HTTP/1.1\rHost: gateway\r" + KEY.encode() + b"\r\r" + CHAT)
add("bare-lf-line-end", req().replace(b"\r\n", b"\n"))
add("mixed-line-ends", req().replace(b"\r\n", b"\n", 2))

# --- request lines: methods
for m in ["G ET", "GET\x00", "post", "P@ST", "PO\tST", "POST" * 3000, "\x16\x03\x01", "PRI", "CONNECT", "TRACE",
          "OPTIONS", "DELETE", "PUT", "PATCH", "HEAD", "GET", "BREW", "M-SEARCH", "\xffPOST"]:
    target = "*" if m == "PRI" else ("gateway:443" if m == "CONNECT" else "/v1/chat/completions")
    version = "HTTP/2.0" if m == "PRI" else "HTTP/1.1"
    add("method-" + m[:10].encode("latin-1").hex(), req(method=m, target=target, version=version))
# The HTTP/2 preface itself opens an HTTP/2 connection (Http2IT); one that goes wrong after "PRI * HTTP/2.0" is
# read as HTTP/1.1 and refused.
add("h2-preface-broken", b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n")
add("tls-client-hello", bytes.fromhex("160301020001000100030300") + b"\x00" * 64)
add("empty-request-line", b"\r\n\r\n\r\n" + b" \r\n\r\n")
add("request-line-only-spaces", b"   \r\n\r\n")
add("request-line-extra-token", req(version="HTTP/1.1 extra"))
add("request-line-two-spaces", req(target=" /v1/chat/completions"))
add("request-line-tab-separators", b"POST\t/v1/chat/completions\tHTTP/1.1\r\nHost: g\r\n" + KEY.encode() + b"\r\n\r\n")
add("request-line-too-long", req(target="/v1/chat/completions?" + "a" * 9000))
add("request-line-too-long-path", req(target="/v1/" + "a" * 9000))
add("headers-too-large-one", req(headers=["X-Big: " + "a" * 17000]))
add("headers-too-large-many", req(headers=["X-H%d: %s" % (i, "a" * 100) for i in range(200)]))
add("headers-too-many", req(headers=["X-H%d: a" % i for i in range(150)]))

# --- versions
for v in ["HTTP/0.9", "HTTP/2.0", "HTTP/1.1x", "HTTP/1.2", "HTTP/3", "http/1.1", "HTTP/01.1", "HTTP/1.10", "HTTP/ 1.1",
          "HTTP/1", "HTTPS/1.1", "HTTP/1.1\x00", "HTTP/9.9", "XTTP/1.1", "HTTP/1.1.1"]:
    add("version-" + v.encode("latin-1").hex(), req(version=v))
add("version-missing-http09", b"GET /v1/models\r\n\r\n")

# --- request targets: absolute form, asterisk, authority, dot segments, encodings
for t in ["http://evil.example/v1/chat/completions", "https://127.0.0.1/v1/chat/completions", "//evil/v1/chat/completions",
          "http://gateway/v1/chat/completions", "*", "gateway:80", "v1/chat/completions", "HTTP://evil/v1/models",
          "/v1/../sim/stats", "/v1/%2e%2e/sim/stats", "/v1/%2E./sim/stats", "/v1/.%2e/sim/stats", "/v1/./chat/completions",
          "/v1/chat/completions/..", "/v1/chat/completions/.", "/v1/chat/%2E%2E/completions", "/v1/chat/completions?x=1",
          "/v1/chat/completions?", "/v1/chat%2fcompletions", "/%76%31/chat/completions", "/v1\\..\\sim\\stats",
          "/v1//chat/completions", "/v1/chat/completions#frag", "/v1/chat/completions%00", "/v1/%", "/v1/%zz",
          "/v1/chat/completions/", "/V1/chat/completions", "/v1/chat/completions;x", "/sim/stats", "/admin/stats",
          "/", "/v1", "/v1/", "/v1/files/x", "/v1/fine_tuning/jobs", "/v1/../../etc/passwd",
          "/v1/chat/completions\x00", "/v1/%c0%ae%c0%ae/x", "/v1/chat/compl\xe9tions"]:
    add("target-" + t[:30].encode("latin-1").hex(), req(target=t))
add("target-get-models-query-dot", req(method="GET", target="/v1/models/..", body=None, ctype=None))

# --- Host and Authorization
add("host-missing", req(host=None))
add("host-doubled", req(headers=["Host: other"]))
add("host-doubled-same", req(headers=["Host: gateway"]))
add("host-with-space", req(host="Host: gate way"))
add("host-with-slash", req(host="Host: evil/path"))
add("host-with-userinfo", req(host="Host: user@evil"))
add("host-bad-port", req(host="Host: gateway:8o"))
add("host-space-before-colon", req(host="Host : gateway"))
add("host-missing-http10-absolute", req(version="HTTP/1.0", host=None, target="http://evil/v1/chat/completions"))
add("auth-doubled", req(headers=["Authorization: Bearer sk-other"]))
add("auth-doubled-same", req(headers=[KEY]))
add("auth-missing", req(auth=False))
add("auth-basic", req(auth=False, headers=["Authorization: Basic c2stY29ycHVzOg=="]))
add("auth-bearer-empty", req(auth=False, headers=["Authorization: Bearer "]))
add("auth-bearer-two-keys", req(auth=False, headers=["Authorization: Bearer sk-corpus sk-other"]))
add("auth-wrong-key", req(auth=False, headers=["Authorization: Bearer sk-wrong"]))
add("auth-digest-as-key", req(auth=False, headers=["Authorization: Bearer sha256:" + "0" * 64]))
add("auth-api-key-header-only", req(auth=False, headers=["api-key: sk-corpus"]))

# --- bodies: JSON the strict parser refuses
bodies = {
    "truncated": CHAT[:-5], "empty-object": b"{}", "empty": b"", "null": b"null", "array": b"[" + CHAT + b"]",
    "string": b'"hi"', "number": b"42", "deep-nesting": b'{"model":"m","messages":[{"role":"user","content":"x"}],'
    b'"metadata":' + b"[" * 100 + b"]" * 100 + b"}",
    "huge-exponent": CHAT[:-1] + b',"temperature":1e999999}', "negative-huge": CHAT[:-1] + b',"temperature":-1e400}',
    "long-number": CHAT[:-1] + b',"seed":' + b"9" * 400 + b"}", "nan": CHAT[:-1] + b',"temperature":NaN}',
    "infinity": CHAT[:-1] + b',"top_p":Infinity}', "duplicate-model": b'{"model":"a","model":"b","messages":[]}',
    "duplicate-messages": CHAT[:-1] + b',"messages":[]}', "model-number": b'{"model":7,"messages":[]}',
    "messages-string": b'{"model":"m","messages":"hi"}', "messages-missing": b'{"model":"m"}',
    "temperature-string": CHAT[:-1] + b',"temperature":"hot"}', "max-tokens-negative": CHAT[:-1].replace(b'"max_tokens":3', b'"max_tokens":-3') + b"}",
    "n-zero": CHAT[:-1] + b',"n":0}', "stream-string": CHAT[:-1] + b',"stream":"yes"}',
    "invalid-utf8": CHAT.replace(b"hi", b"h\xff\xfei"), "overlong-utf8": CHAT.replace(b"hi", b"\xc0\xafhi"),
    "utf8-surrogate-bytes": CHAT.replace(b"hi", b"\xed\xa0\x80"), "bom": b"\xef\xbb\xbf" + CHAT,
    "utf16": CHAT.decode().encode("utf-16-le"), "utf16-bom": b"\xff\xfe" + CHAT.decode().encode("utf-16-le"),
    "trailing-data": CHAT + b" {}", "trailing-garbage": CHAT + b"x", "trailing-bracket": CHAT + b"]",
    "single-quotes": CHAT.replace(b'"', b"'"), "comments": b"/*c*/" + CHAT, "unquoted-keys": b'{model:"m"}',
    "trailing-comma": CHAT[:-1] + b",}", "control-char-in-string": CHAT.replace(b"hi", b"h\x01i"),
    "lone-backslash": CHAT.replace(b"hi", b"h\\i"), "bad-escape": CHAT.replace(b"hi", b"\\ud800\\x"),
    "nul-bytes": b"\x00" * 32, "whitespace-only": b"   \r\n\t ", "prompt-object": b'{"model":"m","prompt":{"a":1}}',
}
for name, body in bodies.items():
    target = "/v1/completions" if name == "prompt-object" else "/v1/chat/completions"
    add("json-" + name, req(target=target, body=body))
add("json-embeddings-input-number", req(target="/v1/embeddings", body=b'{"model":"m","input":{"x":1}}'))

# --- content types, methods on endpoints, sizes, lengths that do not match
for ct in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml",
           "text/html", "application/jsonx", "image/png"]:
    add("content-type-" + ct.split(";")[0].replace("/", "_"), req(ctype=ct))
add("method-get-chat", req(method="GET", body=None, ctype=None))
add("method-put-chat", req(method="PUT"))
add("method-post-models", req(target="/v1/models"))
add("method-delete-files", req(method="DELETE", target="/v1/files/file-1", body=None, ctype=None))
add("body-over-limit-cl", req(length=False, headers=["Content-Length: %d" % (2 << 20)], body=b"{"))
add("body-over-limit-expect", req(length=False, headers=["Content-Length: %d" % (2 << 20), "Expect: 100-continue"], body=None))
add("expect-unknown", req(headers=["Expect: 200-ok"]))
add("cl-short-body", req(length=False, headers=["Content-Length: %d" % (len(CHAT) + 50)]))
add("cl-long-body", req(length=False, headers=["Content-Length: 10"]))
add("cl-zero-with-body", req(length=False, headers=["Content-Length: 0"]))
add("head-only-no-end", b"POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\n" + KEY.encode() + b"\r\n")
add("garbage", b"\x00\x01\x02\x03 hello\r\n\r\n")
add("json-as-request", CHAT + b"\r\n\r\n")
add("sse-as-request", b"data: {}\r\n\r\n")

# --- single-valued headers sent twice: refused, not read as the first (a proxy in front may read the last)
add("twice-content-type", req(headers=["Content-Type: text/plain"]))
add("twice-x-request-id", req(headers=["X-Request-Id: a", "X-Request-Id: b"]))
add("twice-x-cache-context", req(headers=["X-Cache-Context: user-1", "X-Cache-Context: user-2"]))
add("twice-x-cache-threshold", req(headers=["X-Cache-Threshold: 0.99", "X-Cache-Threshold: 0.5"]))
add("twice-x-priority", req(headers=["X-Priority: batch", "X-Priority: interactive"]))

here = os.path.dirname(os.path.abspath(__file__))
for f in os.listdir(here):
    if f.endswith(".http"):
        os.remove(os.path.join(here, f))
seen = set()
for i, (name, data) in enumerate(out):
    safe = "".join(c if c.isalnum() or c in "-_+." else "_" for c in name)[:60]
    seen.add(safe)
    with open(os.path.join(here, "%03d-%s.http" % (i, safe)), "wb") as fh:
        fh.write(data)
print(len(out), "requests written")
