"""`preload`: libraries imported ahead in a daemon thread, once per process; `wait_for`
returns when one is in, and at once for one no preload covers."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    """`code` in a fresh Python (imports are per process), its output."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_preloaded_module_is_imported_in_the_background_and_waited_for() -> None:
    out = _run("""
        import sys
        from memlens_app import preload
        assert "colorsys" not in sys.modules
        thread = preload.start(("colorsys", "no_such_module_here"))
        print(preload.wait_for("colorsys"), "colorsys" in sys.modules)
        print(preload.wait_for("no_such_module_here"))  # missing: waited for, not raised
        print(preload.start(("colorsys",)) is None)  # once per process
        print(preload.wait_for("json.decoder"))  # not preloaded: no wait
        thread.join()
    """)
    assert out.splitlines() == ["True True", "True", "True", "False"]


def test_wait_for_preload_returns_once_everything_is_in() -> None:
    out = _run("""
        import sys
        from memlens_app import preload
        print(preload.wait_for_preload())  # nothing preloaded: nothing to wait for
        preload.start(("colorsys", "fractions"), first=("numbers",))
        print("numbers" in sys.modules)  # imported before start returned
        print(preload.wait_for_preload(), "colorsys" in sys.modules and "fractions" in sys.modules)
    """)
    assert out.splitlines() == ["True", "True", "True True"]
