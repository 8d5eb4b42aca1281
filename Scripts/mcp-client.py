#!/usr/bin/env python3
"""Drives `feedsh mcp` with the MCP reference SDK for Python (the `mcp` package),
for the MCP tests: starts the server over stdio, lists its tools, makes the calls
given as JSON ([{"tool": NAME, "arguments": {...}}, ...]) and prints one JSON
object: {"tools": [names], "calls": [{"tool", "isError", "text", "structured"}]}.

Given {"parallel": true, "calls": [...]}, the calls are all in flight at once, each
with a 60 s limit, and a call the server answers with a protocol error (or not in
time) gives {"tool", "error"} instead; "seconds" says how long all of them took.
An argument given as {"$repeat": TEXT, "times": N} is TEXT N times (a message
larger than a command line may be).

Usage: mcp-client.py CALLS-JSON FEEDSH [ARGUMENTS...]"""
import asyncio
import json
import os
import sys
import time
from datetime import timedelta

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def summary(call, result):
    return {
        "tool": call["tool"],
        "isError": bool(result.isError),
        "text": " ".join(c.text for c in result.content if getattr(c, "type", "") == "text"),
        "structured": result.structuredContent,
    }


def arguments(call):
    return {
        name: value["$repeat"] * value["times"] if isinstance(value, dict) and "$repeat" in value else value
        for name, value in call.get("arguments", {}).items()
    }


async def parallel(session, call):
    try:
        result = await session.call_tool(call["tool"], arguments(call), read_timeout_seconds=timedelta(seconds=60))
        return summary(call, result)
    except Exception as error:  # the protocol error or time-out is what is tested
        return {"tool": call["tool"], "error": f"{type(error).__name__}: {error}"}


async def main() -> None:
    given = json.loads(sys.argv[1])
    together = isinstance(given, dict) and given.get("parallel", False)
    calls = given["calls"] if isinstance(given, dict) else given
    server = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=dict(os.environ))
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            started = time.monotonic()
            if together:
                results = await asyncio.gather(*(parallel(session, call) for call in calls))
            else:
                results = []
                for call in calls:
                    results.append(summary(call, await session.call_tool(call["tool"], arguments(call))))
            print(
                json.dumps(
                    {
                        "tools": [tool.name for tool in tools.tools],
                        "calls": list(results),
                        "seconds": time.monotonic() - started,
                    }
                )
            )


asyncio.run(main())
