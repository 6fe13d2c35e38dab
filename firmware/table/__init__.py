"""Table procedures: seats, button and blinds across hands, dealing from a card
source with the dealer's incidents, rules profiles and table scripts."""
