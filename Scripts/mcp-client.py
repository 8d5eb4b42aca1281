#!/usr/bin/env python3
"""Drives `feedsh mcp` with the MCP reference SDK for Python (the `mcp` package),
for the MCP tests: starts the server over stdio, lists its tools, makes the calls
given as JSON ([{"tool": NAME, "arguments": {...}}, ...]) and prints one JSON
object: {"tools": [names], "calls": [{"tool", "isError", "text", "structured"}]}.

Usage: mcp-client.py CALLS-JSON FEEDSH [ARGUMENTS...]"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    calls = json.loads(sys.argv[1])
    server = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=dict(os.environ))
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            results = []
            for call in calls:
                result = await session.call_tool(call["tool"], call.get("arguments", {}))
                results.append(
                    {
                        "tool": call["tool"],
                        "isError": bool(result.isError),
                        "text": " ".join(c.text for c in result.content if getattr(c, "type", "") == "text"),
                        "structured": result.structuredContent,
                    }
                )
            print(json.dumps({"tools": [tool.name for tool in tools.tools], "calls": results}))


asyncio.run(main())
