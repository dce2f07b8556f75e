"""People at the table: playing and replaying games, the seat's view and the session around it."""
