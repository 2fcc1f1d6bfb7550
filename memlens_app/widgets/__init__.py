"""Everything of the app that is not a page script: one folder of widgets per page
(`curate/`, `map/`...), those several pages share in `common/`, where `common/state` is the
one module holding the cached store handles. Streamlit never navigates here."""
