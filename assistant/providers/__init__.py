"""Chat and local models behind one small protocol (base), chosen by select (anthropic, openai, ollama,
offline); local runs the structured calls (titles, consolidation) on Ollama or an OpenAI-compatible endpoint."""
