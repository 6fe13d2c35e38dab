"""The running table: the controller loop, its journal and recovery, hand
history, retention, meters, the systemd service and technician diagnostics.
"""
