"""The memory and reminders for other AI tools: an MCP server (SPEC F11), above the service, below the CLI.

server.py   the server on the official SDK: the registry's tools (assistant.tools), the agenda and
            memory resources, the recap prompt; every answer through the one gate; `serve(...)`
address.py  where `--http` may listen (loopback only) and its bearer token (light: no SDK import)

Nothing here is imported by the other commands: the SDK costs most of a second to import.
"""
