#!/usr/bin/env python3
"""Serve the site on 127.0.0.1:$PORT (8000): the folder given (default www/, with the wasm-bindgen
output pkg/ at /pkg/; `make serve` serves the built dist/).

Standard library only. Sends the page's Content-Security-Policy so that what is tested locally
is what a strict static host would enforce. Any page may frame the site (the embeds): `*` in
`frame-ancestors` matches network schemes only (http, https, ws, wss), so `file:` is listed as
well, for course notes opened from disk (tests/e2e/embed.spec.js).
"""
import functools
import http.server
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; frame-ancestors * file:"


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript", ".mjs": "text/javascript",
                      ".safetensors": "application/octet-stream", ".webmanifest": "application/manifest+json"}

    def translate_path(self, path):
        clean = path.split("?", 1)[0].split("#", 1)[0]
        # www/ (development) has no pkg/ of its own: serve the wasm-bindgen output from the repo.
        if clean.startswith("/pkg/") and not (Path(self.directory) / "pkg").is_dir():
            return str(ROOT / "pkg" / os.path.basename(clean))
        return super().translate_path(path)

    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        # A sandboxed <iframe> (sandbox="allow-scripts", no allow-same-origin) has an opaque
        # origin, so its module scripts, wasm and model fetches are cross-origin requests.
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):
        if os.environ.get("QUIET") != "1":
            super().log_message(fmt, *args)


def main():
    port = int(os.environ.get("PORT", "8000"))
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "www"
    handler = functools.partial(Handler, directory=str(root))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as httpd:
        print(f"attnscope: serving {root} on http://127.0.0.1:{port}/ (Ctrl-C stops)", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
