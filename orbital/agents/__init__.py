"""How Orbital plugs into coding agents: pure edits of each agent's own configuration files.

Nothing here reads or writes a file or imports the service: the installer (an interface)
reads the files, calls these functions and writes what they return.
"""
