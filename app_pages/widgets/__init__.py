"""Everything under app_pages/ that is not a page: widgets shared by the page scripts, and
`state`, the one module holding the cached store handles. Streamlit never navigates here."""
