"""The page scripts app.py navigates to (one per page); their shared widgets are in `widgets/`."""
