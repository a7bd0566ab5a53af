import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.engine import Options

# Django registers a model when the models module of an app imports it: the report's model
# is written with the rest of moderation.
from games.moderation.models import Report  # noqa: F401


def new_invite_token():
    return secrets.token_urlsafe(16)


def new_seed():
    return secrets.randbits(63)


def new_deal_secret():
    """The server's half of the deal commitment (docs/fair-deals.md): never shown before
    the game ends."""
    return secrets.token_hex(32)


class GameQuerySet(models.QuerySet):
    def open_tables(self):
        return self.filter(status=Game.Status.OPEN)

    def listed(self):
        """Open public tables, for the lobby list."""
        return self.open_tables().filter(private=False)

    def active(self):
        return self.filter(status=Game.Status.ACTIVE)

    def bots_stalled(self, before):
        return self.active().filter(bot_due_at__lte=before)

    def clock_due(self, now=None):
        """Games the clock sweep must look at now (see docs/clocks.md)."""
        return self.active().filter(wake_at__lte=now or timezone.now())


class Game(models.Model):
    """A table: its options, its seats (Seat) and, once started, its events.

    The engine's state lives in GameSnapshot; turn, round and deadlines are
    copied here so that lists and sweeps need no engine.
    """

    # The options a host chooses for a table, in the create form's order: the form, Play
    # again's copy of a finished table and what a moderator may change before the deal all
    # start from this one list, so that a new option reaches the three of them.
    TABLE_OPTIONS = (
        "players",
        "pace",
        "move_seconds",
        "turn_hours",
        "bot_speed",
        "missed_deadline",
        "stacking",
        "final_card_penalty",
        "target_score",
        "spectators",
        "private",
        "rated",
        "bot_accounts",
    )

    class Status(models.TextChoices):
        OPEN = "open", "Waiting for players"
        ACTIVE = "active", "Playing"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Abandoned"

    class Pace(models.TextChoices):
        REALTIME = "realtime", "Real time"
        TURN_BASED = "turn", "Turn by turn"

    class MissedDeadline(models.TextChoices):
        BOT = "bot", "A bot plays that turn"
        LEAVE = "leave", "The player is treated as having left"

    class BotSpeed(models.TextChoices):
        # In real time a site bot waits before its move, so that a person sees each card
        # land (games.actions.decisions.bot_pace); a player who knows the game may not want to.
        STEADY = "steady", "Steady: time to see each bot's card land"
        QUICK = "quick", "Quick: bots move three times as fast"

    MOVE_SECONDS = [(45, "Relaxed (45 s)"), (30, "Normal (30 s)"), (15, "Fast (15 s)")]
    TURN_HOURS = [(12, "12 hours"), (24, "24 hours"), (72, "72 hours")]
    PLAYERS = [(4, "4 players"), (6, "6 players"), (8, "8 players")]

    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_games"
    )
    status = models.CharField(max_length=10, choices=Status, default=Status.OPEN)

    # Options, fixed when the table is created.
    players = models.PositiveSmallIntegerField(choices=PLAYERS, default=4)
    pace = models.CharField(max_length=10, choices=Pace, default=Pace.REALTIME)
    move_seconds = models.PositiveSmallIntegerField(choices=MOVE_SECONDS, default=30)
    turn_hours = models.PositiveSmallIntegerField(choices=TURN_HOURS, default=24)
    bot_speed = models.CharField(max_length=8, choices=BotSpeed, default=BotSpeed.STEADY)
    missed_deadline = models.CharField(
        max_length=10, choices=MissedDeadline, default=MissedDeadline.BOT
    )
    stacking = models.BooleanField(default=False)
    final_card_penalty = models.BooleanField(default=True)
    target_score = models.PositiveSmallIntegerField(null=True, blank=True)  # None: single round
    spectators = models.BooleanField(default=False)
    private = models.BooleanField(default=False)
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    # Rated or casual, the host's choice; a game with a bot, aborted or voided counts for
    # no rating whatever this says (games.actions.ratings).
    rated = models.BooleanField(default=False)
    # Why a game played as rated moved no rating (games.actions.ratings.unrated_reason),
    # written at its end and shown there; "" when it moved them, or was casual.
    rating_note = models.CharField(max_length=120, blank=True, default="")
    # The host lets bot accounts (people's own programs, docs/bot-accounts.md) sit down
    # on their own; a host may invite one by name whatever this says.
    bot_accounts = models.BooleanField(default=False)

    # The game itself.
    seed = models.BigIntegerField(default=new_seed)
    # Revealed with the seed once the game is over, so that anyone can check every deal
    # against the commitments shown at the table.
    deal_secret = models.CharField(max_length=64, default=new_deal_secret)
    last_seq = models.PositiveIntegerField(default=0)
    round = models.PositiveSmallIntegerField(null=True, blank=True)
    turn = models.PositiveSmallIntegerField(null=True, blank=True)
    waiting_on = models.JSONField(default=list, blank=True)
    # Seat numbers played by bots, copied from Seat at the start (and whenever
    # a seat is handed to a bot) so that a decision need not query the seats.
    bot_seats = models.JSONField(default=list, blank=True)
    # {"<seat>": user id} of the seats bot accounts held at the deal, written with it, so
    # that a decision tells their event streams (games.actions.account_events) without
    # querying the seats; {} for a game of people and site bots.
    account_seats = models.JSONField(default=dict, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True, db_index=True)
    bot_due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Clocks and presence (every key is described in docs/clocks.md).
    # The earliest moment the clock sweep has something to do for this game.
    wake_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # When the game's one pending real-time countdown task fires (docs/clocks.md).
    countdown_at = models.DateTimeField(null=True, blank=True)
    clocks = models.JSONField(
        default=dict, blank=True
    )  # {"seat": {since, kind, started, due, ...}}
    timeouts = models.JSONField(default=dict, blank=True)  # {"seat": count}
    stand_ins = models.JSONField(default=dict, blank=True)  # {"seat": {reason, since}}
    presence = models.JSONField(
        default=dict, blank=True
    )  # {"seat": {sockets, away_since, hold_until}}

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # "Play again": the table offered to the same seats after this one ended.
    rematch_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematches"
    )

    objects = GameQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(players__in=[4, 6, 8]), name="game_players_4_6_8"),
            models.CheckConstraint(
                condition=Q(target_score__isnull=True)
                | Q(target_score__gte=50, target_score__lte=5000),
                name="game_target_score_range",
            ),
        ]
        indexes = [models.Index(fields=["status", "private", "-created_at"])]

    def __str__(self):
        return f"Table {self.pk}"

    @property
    def teams(self):
        return self.players // 2

    def engine_options(self) -> Options:
        return Options(
            players=self.players,
            stacking=self.stacking,
            final_card_penalty=self.final_card_penalty,
            target_score=self.target_score,
        )

    def free_seat_count(self):
        # Iterates seats.all() so that a prefetch_related("seats") is used. A seat held for
        # a player of the game before (Play again) is not free.
        now = timezone.now()
        return sum(1 for seat in self.seats.all() if seat.is_free(now))

    def time_limit_label(self):
        if self.pace == self.Pace.REALTIME:
            return f"{self.move_seconds} s a move"
        return f"{self.turn_hours} h a turn, missed: {self.get_missed_deadline_display().lower()}"

    def scoring_label(self):
        return "Single round" if self.target_score is None else f"To {self.target_score} points"

    def decision_window(self) -> timedelta:
        if self.pace == self.Pace.REALTIME:
            return timedelta(seconds=self.move_seconds)
        return timedelta(hours=self.turn_hours)


TEAM_SHAPES = ["circle", "square", "triangle", "diamond"]


class SeatQuerySet(models.QuerySet):
    def held(self, now=None):
        """Empty seats still waiting for the person Play again holds them for."""
        return self.filter(
            user__isnull=True,
            bot_level="",
            held_for__isnull=False,
            held_until__gt=now or timezone.now(),
        )

    def free(self, now=None):
        """Empty seats anyone may take: neither a person, a bot nor a live hold."""
        return self.filter(user__isnull=True, bot_level="").exclude(
            held_for__isnull=False, held_until__gt=now or timezone.now()
        )


class Seat(models.Model):
    """Seat `number` (0..n-1, clockwise) of a table: empty, a user, or a bot.

    An empty seat of a Play again table may be held for the person who sat there in the
    game before (`held_for`) until `held_until`: nobody else takes it meanwhile
    (games.actions.rematch, docs/table.md)."""

    class BotLevel(models.TextChoices):
        EASY = "easy", "Easy"
        NORMAL = "normal", "Normal"
        HARD = "hard", "Hard"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
    )
    bot_level = models.CharField(max_length=10, choices=BotLevel, blank=True, default="")
    held_for = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    held_until = models.DateTimeField(null=True, blank=True)

    objects = SeatQuerySet.as_manager()

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="seat_unique_number"),
            models.UniqueConstraint(
                fields=["game", "user"],
                condition=Q(user__isnull=False),
                name="seat_one_per_user",
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=True) | Q(bot_level=""), name="seat_user_or_bot"
            ),
        ]

    def __str__(self):
        return f"Seat {self.number} of table {self.game_id}"

    @property
    def is_empty(self):
        return self.user_id is None and not self.bot_level

    @property
    def is_bot(self):
        return bool(self.bot_level)

    def waits_for(self, now=None):
        """The id of the person this empty seat waits for now, or None."""
        if (
            self.is_empty
            and self.held_for_id is not None
            and self.held_until is not None
            and self.held_until > (now or timezone.now())
        ):
            return self.held_for_id
        return None

    def is_free(self, now=None):
        """Empty and held for nobody: anyone may take it."""
        return self.is_empty and self.waits_for(now) is None

    @property
    def team(self):
        return self.number % (self.game.players // 2)

    @property
    def team_shape(self):
        return TEAM_SHAPES[self.team]

    @property
    def partner(self):
        n = self.game.players
        return (self.number + n // 2) % n

    def label(self) -> str:
        if self.user is not None:
            return self.user.name
        if self.bot_level:
            return f"Bot ({self.get_bot_level_display()})"
        return "Empty"


class GameSnapshot(models.Model):
    """The engine's `to_dict()` after event `seq`: loading = snapshot + events after it."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="snapshot"
    )
    seq = models.PositiveIntegerField()
    state = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)


class GameEvent(models.Model):
    """One decision or system step, numbered 1, 2, 3... per game. Never updated."""

    class Actor(models.TextChoices):
        PERSON = "person", "Person"
        BOT = "bot", "Bot"
        TIMEOUT = "timeout", "Time-out"
        MODERATOR = "moderator", "Moderator"
        SYSTEM = "system", "System"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=20)  # the action's type, or "deal"
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    actor = models.CharField(max_length=10, choices=Actor)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    action = models.JSONField(null=True, blank=True)  # None for system steps (the deal)
    events = models.JSONField(default=list)  # what the engine said happened
    idempotency_key = models.CharField(max_length=64, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq"),
            models.UniqueConstraint(
                fields=["game", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="event_unique_idempotency_key",
            ),
        ]

    def __str__(self):
        return f"#{self.seq} {self.kind} (table {self.game_id})"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ValueError("Game events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("Game events are append-only")


class EmailOutbox(models.Model):
    """An email the site decided to send: written in the transaction that decided it
    (unique per game, decision and kind, so deciding twice writes one row), sent after
    commit and marked `sent_at`. See docs/clocks.md."""

    class Kind(models.TextChoices):
        TURN = "turn", "Your turn"
        REMINDER = "reminder", "Half-time reminder"
        # Find a game seated the player (Web Push only: games.actions.webpush.table_found).
        START = "start", "Your game is starting"

    class Channel(models.TextChoices):
        # The same decision goes out on each channel, each row decided on its own by the
        # same rules (games.actions.outbox): a player may have email, devices, both.
        EMAIL = "email", "Email"
        PUSH = "push", "Web Push"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="emails")
    seat = models.PositiveSmallIntegerField()
    seq = models.PositiveIntegerField()  # the decision: the clock's `since`
    kind = models.CharField(max_length=10, choices=Kind)
    channel = models.CharField(max_length=5, choices=Channel, default=Channel.EMAIL)
    created_at = models.DateTimeField(default=timezone.now)
    # Not looked at again before this: the player was on the site, quiet hours, the daily
    # email's hour (games.actions.outbox.decide). The sweep sends what is due.
    not_before = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True, db_index=True)
    skipped = models.CharField(max_length=40, blank=True, default="")  # why it was not sent
    # How it went out: alone, or in one email with the player's other games.
    via = models.CharField(
        max_length=10,
        blank=True,
        default="",
        choices=[("email", "its own email"), ("digest", "a digest"), ("push", "its own push")],
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["game", "seq", "seat", "kind", "channel"],
                name="email_outbox_unique_decision_kind_channel",
            ),
        ]
        indexes = [
            # The sweep's question, every second: which unsent rows are due now.
            models.Index(
                fields=["not_before"],
                condition=models.Q(sent_at__isnull=True),
                name="email_outbox_due",
            ),
        ]

    def __str__(self):
        return f"{self.kind} {self.channel}, seat {self.seat} of table {self.game_id} (#{self.seq})"


class Rating(models.Model):
    """A person's rating at one table size (4, 6 or 8 players): OpenSkill's Plackett-Luce
    `mu` and `sigma` after their `games` rated games at that size (docs/ratings.md).
    Written only by games.actions.ratings, which locks the row while it reads it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    players = models.PositiveSmallIntegerField(choices=Game.PLAYERS)
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "players"], name="rating_unique_user_players"),
        ]
        indexes = [models.Index(fields=["players", "-games"], name="rating_players_games")]

    def __str__(self):
        return f"{self.user} at {self.players} players: {self.mu:.2f} ± {self.sigma:.2f}"


class RatingChange(models.Model):
    """What one rated game did to one person's rating. Unique per game and person, so a
    game's update can never be applied twice; the Rating is the last of these."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    players = models.PositiveSmallIntegerField(choices=Game.PLAYERS)
    seat = models.PositiveSmallIntegerField()
    rank = models.PositiveSmallIntegerField()  # the team's rank in the game (1 = won)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="rating_change_unique_game_user"),
        ]
        indexes = [models.Index(fields=["user", "players", "id"], name="rating_change_history")]

    def __str__(self):
        return f"{self.user} in table {self.game_id}: {self.mu_before:.2f} → {self.mu_after:.2f}"


class ChatMessage(models.Model):
    """One line of a table's chat (docs/chat.md), in one of two rooms: the players' (people
    seated at the table) or the spectators' (people following it without a seat). Written
    only by games.actions.chat; the text is the person's as they sent it, escaped wherever
    it is shown. A moderator hides a line (`hidden_at`) rather than deleting it, so that a
    report can still be read."""

    class Room(models.TextChoices):
        PLAYERS = "players", "Players"
        SPECTATORS = "spectators", "Spectators"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_messages")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    room = models.CharField(max_length=10, choices=Room)
    text = models.CharField(max_length=300)
    # The sender's key for this line: a frame sent again (a reconnect, a double click)
    # finds the line already stored instead of writing it twice.
    key = models.CharField(max_length=40)
    created_at = models.DateTimeField(default=timezone.now)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user", "key"], name="chat_unique_key"),
        ]
        # The moderators' chat actions (hide, show, mute, unmute): a chat line is never
        # changed through the admin's form, so its change permission would mean nothing.
        permissions = [("moderate_chat", "Can hide chat messages and mute people in chat")]
        indexes = [models.Index(fields=["game", "room", "-id"], name="chat_room_newest")]

    def __str__(self):
        return f"{self.user} in table {self.game_id} ({self.room}): {self.text[:40]}"


class ChatMute(models.Model):
    """A moderator's mute: the account may not chat at any table until it is lifted (the
    row deleted; the log keeps both)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mute"
    )
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reason = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"{self.user} muted in chat"


class ChatModeration(models.Model):
    """The chat's moderation log: one row per moderator action (hide, show, mute, unmute),
    who, when and why. Append-only."""

    class Action(models.TextChoices):
        HIDE = "hide", "Hid a message"
        SHOW = "show", "Showed a message again"
        MUTE = "mute", "Muted in chat"
        UNMUTE = "unmute", "Unmuted in chat"

    action = models.CharField(max_length=10, choices=Action)
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_moderation"
    )
    message = models.ForeignKey(
        ChatMessage, on_delete=models.SET_NULL, null=True, blank=True, related_name="moderation"
    )
    reason = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.get_action_display()}: {self.user} by {self.moderator}"


class ChatSetting(models.Model):
    """A person's own choice to turn the chat off, at every table, until they turn it on:
    no panel and no chat pushes to their sockets."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="chat_setting",
    )
    muted = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)


class AccountEvent(models.Model):
    """One event of a bot account's event stream (games.actions.account_events): an
    invitation, a seat, a game's start and end, its turn, a time-out, a stand-in.

    Written in the transaction of what it tells, so it exists exactly when that happened;
    read by id (the stream's cursor) and pruned after ACCOUNT_EVENTS_KEEP_DAYS. People's
    accounts have none. `data` holds ids, seats, counts and results, never a card."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_events"
    )
    kind = models.CharField(max_length=24)
    # A plain id, not a foreign key: the stream reads no game through it, and a key's
    # index would be one more to write with every decision of a bot account's game.
    game_id = models.BigIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            # The stream's read: one account's events after an id.
            models.Index(fields=["user", "id"], name="account_event_cursor"),
            # The pruning, and the stream's look at what may still be committing.
            models.Index(fields=["created_at"], name="account_event_created"),
        ]

    def __str__(self):
        return f"{self.kind} for {self.user_id} (#{self.pk})"


class GameReview(models.Model):
    """The review of one seat of a finished game (games.actions.review, docs/review.md):
    each of the seat's decisions against the best choice it had, worked out by a task in
    slices. `data` holds the decisions computed so far while the review runs, and the whole
    review (games.bots.review.assemble) once it is done; `version` is the core's
    REVIEW_VERSION it was computed with. One per seat: asking twice finds the same row."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="reviews")
    seat = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=8, choices=Status, default=Status.PENDING)
    data = models.JSONField(default=dict, blank=True)
    # Decisions computed, of `total` (0 until the first slice has counted them).
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # The seat's player lets everyone who may watch the replay read it (a public game's
    # reviews are readable by them whatever this says).
    shared = models.BooleanField(default=False)
    # None: queued by the site itself (a rated game's end).
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    version = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    # Moved by every slice: the sweep re-sends a review that has not moved for a while.
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="review_unique_game_seat"),
        ]
        indexes = [
            # The sweep's question: which unfinished reviews have not moved lately.
            models.Index(
                fields=["updated_at"],
                condition=Q(status__in=["pending", "running"]),
                name="review_unfinished",
            ),
        ]

    def __str__(self):
        return f"Review of seat {self.seat} of table {self.game_id} ({self.status})"
