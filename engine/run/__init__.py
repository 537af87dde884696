"""The bundled execution engine."""
