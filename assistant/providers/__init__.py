"""Chat and local models behind one small protocol (base), chosen by select; local runs the structured calls (titles, consolidation)."""
