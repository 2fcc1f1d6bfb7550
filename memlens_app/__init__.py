"""memlens' web app (Streamlit): the router `main.py`, the page scripts in `page_scripts/`,
their widgets in `widgets/<page>/` (shared ones in `widgets/common/`), the server process
`memlens serve` runs (`server.py`), its settings and favicon. It reads and writes memories
through `memory_core`'s public API only; `memory_core` never imports it."""
