"""Continuous replication of the store with Litestream (SPEC F16; docs/backup.md).

- place: where a store's replication keeps its lock, status and config; the one-replicator lock.
- litestream: the binary, its subcommands, its config, its log and control socket.
- replicator: `assistant backup run`, one Litestream child per store.
- status: `assistant backup status` and the app's warning.
- restore: `assistant restore`.
- keeper: the replicator the app and the notifier keep running in the background.
"""
