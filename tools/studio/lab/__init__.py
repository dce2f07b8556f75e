"""The studio's simulations: the `/simulate` websocket (`channel`) and the process that plays a run (`work`)."""
