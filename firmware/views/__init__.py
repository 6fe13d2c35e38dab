"""What each audience may see (seats, console, technician, broadcast) and the
hand narration, computed in one place from the table.
"""
