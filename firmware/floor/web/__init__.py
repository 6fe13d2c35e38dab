"""The floor's web pages: the HTTP server, login guard, dashboard, TV clock and hand pages."""
