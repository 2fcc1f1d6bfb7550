"""Hostile text, one corpus for every test that shows memories: Markdown that would render
as links, images or colours (AppTest checks, tests/app), and HTML and script that would run
in a browser (tests/e2e). A payload that runs sets `window.__pwned` or opens a dialog."""

from __future__ import annotations

# -- Markdown a page must not render (tests/app/test_untrusted_text.py) ---------------------
PIXEL = "![x](http://127.0.0.1:9/pixel.png)"
LINK = "[click](http://evil.example)"
COLOUR = ":red[alert]"
IMG = "<img src=x onerror=alert(1)>"
URL = "http://evil.example/path"
BIDI = "safe\u202etxt.exe"
HOSTILE = f"{PIXEL} {LINK} {COLOUR} {IMG} {URL} www.evil.example ops@evil.example {BIDI}"
SHOWN_BIDI = "safe<U+202E>txt.exe"

# -- HTML and script a browser must not run (tests/e2e/test_hostile.py) ---------------------
SCRIPT = "<script>window.__pwned=1</script>"
IMG_ONERROR = "<img src=x onerror=window.__pwned=1>"
SVG_ONLOAD = "<svg onload=window.__pwned=1></svg>"
JS_LINK = '<a href="javascript:window.__pwned=1">js link</a> [js md](javascript:alert(2))'
TEXTAREA = "</textarea><script>window.__pwned=1</script>"
ATTRIBUTE = "\" onmouseover=\"window.__pwned=1\" x=\""
ZERO_WIDTH = "zero\u200bwidth\u200djoiner\ufeffbom"
RTL = "\u202eevil\u202c \u05e9\u05dc\u05d5\u05dd"
NUL = "nul\x00byte"
#: Every browser payload in one string: a field holding it holds them all.
XSS = " ".join([SCRIPT, IMG_ONERROR, SVG_ONLOAD, JS_LINK, TEXTAREA, ATTRIBUTE, IMG])
