"""The agents' door: the Model Context Protocol over streamable HTTP (the ``mcp`` function)
and stdio (``biblioteca mcp``), one JSON-RPC core and one set of tools for both.
"""
