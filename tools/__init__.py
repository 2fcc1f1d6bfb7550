"""Development tools of the memlens checkout; not shipped (the wheel holds memory_core and
memlens_app only), and memory_core never imports them."""
