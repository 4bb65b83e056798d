"""How MCP messages reach the server: stdio and streamable HTTP, with the checks and limits the
SDK leaves to its host.

- `stdio.run_stdio`: the SDK's stdio transport, every line checked first (`wire`).
- `http.serve_http`: the SDK's streamable-HTTP app under uvicorn, behind the token, Host/Origin
  and message checks, a session cap (`sessions`) and read and write deadlines (`deadlines`);
  with ``--stateless``, plain requests answered in their own task (`stateless`); ``/healthz`` and
  ``/readyz`` in front of it all (`health`); with ``--workers N``, N forked processes on the one
  port under a supervisor (`workers`).
"""
