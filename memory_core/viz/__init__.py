"""Plotly figures shared by pages and notebooks (no Streamlit here)."""
