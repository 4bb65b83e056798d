"""How MCP messages reach the server: stdio and streamable HTTP, with the checks and limits the
SDK leaves to its host.

- `stdio.run_stdio`: the SDK's stdio transport, every line checked first (`wire`).
- `http.serve_http`: the SDK's streamable-HTTP app under uvicorn, behind the token, Host/Origin
  and message checks, a session cap (`sessions`) and read deadlines (`deadlines`).
"""
