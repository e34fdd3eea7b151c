"""Time and money: a price table, what runs cost and how long their claims took, the
estimate before a run starts, and the budget that stops one (`--max-cost`)."""
