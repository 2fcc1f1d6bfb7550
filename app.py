"""`streamlit run app.py` in a checkout: runs the app's router, memlens_app/main.py."""

import runpy

runpy.run_module("memlens_app.main", run_name="__main__")
