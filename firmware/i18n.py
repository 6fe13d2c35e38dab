"""Translated messages: every user-facing string in Spanish and English.

Messages are looked up by key. Each entry gives the English and Spanish text
with the same ``{placeholders}``; a test checks that both exist and agree.

>>> tr("hand.header", "es", number=3, button=6)
'Mano n.º 3 (botón en el asiento 6)'
"""

from __future__ import annotations

from typing import Any

LANGUAGES = ("en", "es")
DEFAULT_LANGUAGE = "es"

CATALOG: dict[str, dict[str, str]] = {
    "hand.header": {
        "en": "Hand #{number} (button on seat {button})",
        "es": "Mano n.º {number} (botón en el asiento {button})",
    },
    "hand.posts": {"en": "{name} posts {amount}", "es": "{name} pone {amount}"},
    "hand.posts_ante": {
        "en": "{name} posts an ante of {amount}",
        "es": "{name} pone {amount} de ante",
    },
    "hand.dealt": {"en": "Hole cards dealt", "es": "Cartas repartidas"},
    "action.fold": {"en": "{name} folds", "es": "{name} se retira"},
    "action.check": {"en": "{name} checks", "es": "{name} pasa"},
    "action.call": {"en": "{name} calls {amount}", "es": "{name} iguala {amount}"},
    "action.bet": {"en": "{name} bets {amount}", "es": "{name} apuesta {amount}"},
    "action.raise": {"en": "{name} raises to {amount}", "es": "{name} sube a {amount}"},
    "action.all_in": {"en": " (all-in)", "es": " (all-in)"},
    "street.flop": {"en": "Flop: {cards}", "es": "Flop: {cards}"},
    "street.turn": {"en": "Turn: {cards}", "es": "Turn: {cards}"},
    "street.river": {"en": "River: {cards}", "es": "River: {cards}"},
    "hand.cards_up": {
        "en": "No more betting is possible: all hands are turned face up",
        "es": "Ya no se puede apostar: se descubren todas las manos",
    },
    "showdown.shows": {
        "en": "{name} shows {cards}: {hand}",
        "es": "{name} muestra {cards}: {hand}",
    },
    "showdown.mucks": {"en": "{name} mucks", "es": "{name} tira sus cartas"},
    "pot.main": {"en": "Main pot", "es": "Bote principal"},
    "pot.side": {"en": "Side pot {number}", "es": "Bote secundario {number}"},
    "pot.won": {"en": "{pot} of {amount}: {winners}", "es": "{pot} de {amount}: {winners}"},
    "pot.share": {"en": "{name} wins {amount}", "es": "{name} gana {amount}"},
    "hand.stacks": {"en": "Stacks: {stacks}", "es": "Fichas: {stacks}"},
    "table.rebuy": {"en": "{name} rebuys for {amount}", "es": "{name} recompra por {amount}"},
    "table.summary": {
        "en": "{hands} hands played; chips in play {chips} (conserved: {ok})",
        "es": "{hands} manos jugadas; fichas en juego {chips} (se conservan: {ok})",
    },
    "error.card.invalid": {
        "en": "'{text}' is not a card; write a rank and a suit, for example 'Ah'.",
        "es": "'{text}' no es una carta; escriba un valor y un palo, por ejemplo 'Ah'.",
    },
    "error.card.number": {
        "en": "That is not a card number; card numbers are 0 to 51.",
        "es": "Ese no es un número de carta; van del 0 al 51.",
    },
    "error.batch.dtype": {
        "en": "The batch of hands must be an array of whole card numbers.",
        "es": "El lote de manos debe ser una matriz de números de carta enteros.",
    },
    "error.batch.shape": {
        "en": "Each hand of the batch must have five, six or seven cards.",
        "es": "Cada mano del lote debe tener cinco, seis o siete cartas.",
    },
    "error.evaluator.count": {
        "en": "A hand is evaluated from five, six or seven cards.",
        "es": "Una mano se evalúa con cinco, seis o siete cartas.",
    },
    "error.evaluator.language": {
        "en": "Hand descriptions exist in Spanish (es) and English (en).",
        "es": "Las descripciones de manos existen en español (es) e inglés (en).",
    },
    "error.evaluator.strength": {
        "en": "That is not a hand strength.",
        "es": "Ese no es un valor de mano válido.",
    },
    "error.equity.board": {
        "en": "The board must have 0, 3, 4 or 5 cards.",
        "es": "La mesa debe tener 0, 3, 4 o 5 cartas.",
    },
    "error.equity.deck": {
        "en": "Not enough cards remain to complete the board.",
        "es": "No quedan cartas suficientes para completar la mesa.",
    },
    "error.equity.hole": {
        "en": "Each player needs exactly two hole cards.",
        "es": "Cada jugador necesita exactamente dos cartas propias.",
    },
    "error.equity.players": {
        "en": "Equity needs at least one player and at most ten.",
        "es": "El cálculo de probabilidades necesita entre uno y diez jugadores.",
    },
    "error.phh.action": {
        "en": "A hand history action is not valid here.",
        "es": "Una acción del historial de la mano no es válida aquí.",
    },
    "error.phh.incomplete": {
        "en": "The hand history ends before the hand is complete.",
        "es": "El historial termina antes de que la mano se complete.",
    },
    "error.ruling.already_dead": {
        "en": "That hand is already dead.",
        "es": "Esa mano ya está muerta.",
    },
    "error.ruling.tabled": {
        "en": "A tabled hand cannot be killed.",
        "es": "Una mano mostrada no se puede matar.",
    },
    "error.ruling.no_reason": {
        "en": "A ruling needs a reason.",
        "es": "Una decisión necesita un motivo.",
    },
    "error.card.duplicate": {
        "en": "The card {card} appears twice.",
        "es": "La carta {card} aparece dos veces.",
    },
    "error.card.seen_twice": {
        "en": "The card {card} was already dealt in this hand; check the deck.",
        "es": "La carta {card} ya salió en esta mano; revise la baraja.",
    },
    "error.action.out_of_turn": {
        "en": "It is not your turn; seat {actor} is to act.",
        "es": "No es su turno; le toca al jugador {actor}.",
    },
    "error.action.under_call": {
        "en": "The chips in the betting zone do not cover the call.",
        "es": "Las fichas en la zona de apuesta no cubren la igualada.",
    },
    "error.action.no_turn": {"en": "Nobody may act now.", "es": "Nadie puede actuar ahora."},
    "error.action.no_raise": {
        "en": "You cannot raise now; call or fold.",
        "es": "No puede subir ahora; iguale o retírese.",
    },
    "error.action.raise_not_above": {
        "en": "A raise to {to} does not exceed the bet of {current}; check or call.",
        "es": "Subir a {to} no supera la apuesta de {current}; pase o iguale.",
    },
    "error.action.raise_too_small": {
        "en": "The smallest raise allowed is to {low}.",
        "es": "La subida mínima es a {low}.",
    },
    "error.action.raise_too_large": {
        "en": "The largest raise allowed is to {high}.",
        "es": "La subida máxima es a {high}.",
    },
    "error.hand.over": {"en": "The hand is over.", "es": "La mano ha terminado."},
    "error.deck.empty": {
        "en": "The deck has run out of cards.",
        "es": "La baraja se ha quedado sin cartas.",
    },
    "error.hand.too_few": {
        "en": "A hand needs at least two players.",
        "es": "Una mano necesita al menos dos jugadores.",
    },
    "error.hand.empty_stack": {
        "en": "A player without chips cannot be dealt in.",
        "es": "Un jugador sin fichas no puede recibir cartas.",
    },
    "error.hand.shared_seat": {
        "en": "One player per seat.",
        "es": "Un solo jugador por puesto.",
    },
    "error.deal.hole_late": {
        "en": "Hole cards can only be dealt before the first betting round.",
        "es": "Las cartas propias solo se reparten antes de la primera ronda de apuestas.",
    },
    "error.deal.too_many": {
        "en": "Each player gets exactly two hole cards.",
        "es": "Cada jugador recibe exactamente dos cartas.",
    },
    "error.deal.premature": {
        "en": "No board card may be dealt before the betting round is over.",
        "es": "No se puede dar carta comunitaria antes de que termine la ronda de apuestas.",
    },
    "error.deal.board_count": {
        "en": "Wrong number of board cards for this street.",
        "es": "Número de cartas comunitarias incorrecto para esta calle.",
    },
    "error.showdown.not_now": {
        "en": "Cards can be shown or mucked only at the showdown.",
        "es": "Solo se muestran o tiran cartas en el showdown.",
    },
    "error.showdown.no_hand": {
        "en": "That player has no live hand.",
        "es": "Ese jugador no tiene mano viva.",
    },
    "error.showdown.not_his_cards": {
        "en": "A player can only show the cards he was dealt.",
        "es": "Un jugador solo puede mostrar las cartas que recibió.",
    },
    "error.showdown.tabled": {
        "en": "A tabled hand cannot be mucked.",
        "es": "Una mano mostrada no se puede tirar.",
    },
    "error.showdown.last_contender": {
        "en": "The last player in contention for a pot cannot muck.",
        "es": "El último jugador que opta a un bote no puede tirar sus cartas.",
    },
}


def tr(key: str, lang: str = DEFAULT_LANGUAGE, **params: Any) -> str:
    """Return the message ``key`` in ``lang`` with ``params`` filled in.

    An unknown language falls back to English; an unknown key is a
    programming error and raises :class:`KeyError`.
    """
    entry = CATALOG[key]
    text = entry.get(lang) or entry["en"]
    return text.format(**params)
