"""Fair play: rated games between the same two players, provisional accounts, aborts and
lost games left (cool-downs), and a signal of engine use for the staff (see ``rules``)."""
