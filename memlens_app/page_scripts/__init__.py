"""The page scripts memlens_app/main.py navigates to (one per page); their widgets are in
`memlens_app/widgets/`."""
