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

# -- Filter values that would break or widen a query (tests/hardening/test_filter_injection.py)
#: Each is stored in some row's project, agent, repo, session and tags, so "exactly the
#: matching rows" is a real check: a value matches only its own row, a wildcard only itself.
FILTER_VALUES = (
    "it's", "' OR 1=1 --", "'; DROP TABLE memories; --", '"; DROP TABLE memories; --',
    "\\", "\\' OR '1'='1", "%", "_", "a%b", "*", "') OR ('1'='1", "tenant = 'acme'",
    "\uff07 OR 1=1 --",  # fullwidth apostrophe
    "\u0430dmin",  # Cyrillic a, then "dmin"
    "nul\x00byte", "bell\x07 esc\x1b[31m", "\u200fright-to-left\u202e", "x" * 10_000,
)
#: Values no row holds that look like stored ones: each must select nothing.
LOOKALIKES = ("admin", "it\u2019s", "' or 1=1 --", "%%", "x" * 9_999, "nul")
