// SPDX-License-Identifier: MIT
#include "locktimelinepanel.h"

#include <history/historystore.h>
#include <patterns/lock/lockdata.h>

#include <QDateTime>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <algorithm>

namespace gatehouse {

namespace {

// The slack between a TTL running out and a reading that no longer sees the
// holder: a poll that lands within it counts as an expiry, not a release.
constexpr qint64 ExpirySlackMs = 250;

bool holdsNow(const ObjectState &s)
{
    return !s.gone && s.reading.status == Reading::Status::Ok
           && !LockData::of(s.reading).token.isEmpty() && s.reading.pttlMs != -2;
}

} // namespace

PanelRegistry::Panel LockTimelinePanel::registration()
{
    return PanelRegistry::panel<LockTimelinePanel>(QStringLiteral("lockTimeline"));
}

LockTimelinePanel::LockTimelinePanel(const Context &context, QWidget *parent)
    : ObjectPanel(parent)
    , m_kinds(context.kinds)
    , m_title(new QLabel(this))
    , m_table(new QTableWidget(0, 5, this))
{
    setObjectName(QStringLiteral("lockTimelinePanel"));
    m_table->setObjectName(QStringLiteral("lockHolders"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_table, 1);
    m_table->setHorizontalHeaderLabels(
        {tr("Holder token"), tr("Acquired"), tr("Ended"), tr("How"), tr("Held for")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    fitRows(0);
    hide();
}

void LockTimelinePanel::setSnapshot(const std::shared_ptr<const Snapshot> &snapshot)
{
    if (!snapshot)
        return;
    m_clockOffsetMs = snapshot->server.clockOffsetMs;
    if (m_watchStartMs < 0 && snapshot->server.timeMs > 0)
        m_watchStartMs = snapshot->server.timeMs;
    const ObjectList &objects = snapshot->objects;
    const ObjectList *last = m_last ? &m_last->objects : nullptr;
    for (qsizetype i = 0; i < objects.size(); ++i) {
        // A state the monitor did not change is the same shared one: skipped
        // at the cost of a pointer comparison.
        if (last && i < last->size() && last->ptr(i) == objects.ptr(i))
            continue;
        const ObjectState &s = objects.at(i);
        if (!m_kinds.contains(s.object->kind))
            continue;
        follow(s);
    }
    m_last = snapshot;
    if (!m_key.isEmpty() && isVisible())
        fill();
}

void LockTimelinePanel::follow(const ObjectState &s)
{
    const QByteArray &key = s.object->key;
    auto it = m_holders.find(key);
    bool recorded = false; // its holder's "held" is in the history file already
    if (it == m_holders.end()) {
        if (!holdsNow(s))
            return; // nothing held yet: nothing to show
        if (m_order.size() >= MaxLocks)
            forget(m_order.takeFirst());
        m_order.append(key);
        it = m_holders.insert(key, {});
        if (const auto was = m_forgotten.constFind(key); was != m_forgotten.cend()) {
            recorded = *was == qHash(LockData::of(s.reading).token);
            m_forgotten.erase(was);
        }
    }
    QList<Holder> &holders = *it;
    const qint64 at = s.reading.atMs;
    Holder *open = !holders.isEmpty() && holders.last().endedMs < 0 ? &holders.last() : nullptr;
    const auto close = [&](qint64 endedMs) {
        // Ended before its TTL ran out: released; at or after: expired.
        open->endedMs = endedMs;
        open->end = open->expiresAtMs >= 0 && open->expiresAtMs <= endedMs + ExpirySlackMs
                        ? QStringLiteral("expired")
                        : QStringLiteral("released");
        if (open->end == QLatin1String("expired"))
            open->endedMs = std::min(endedMs, open->expiresAtMs);
        record(key, *open, true);
    };
    if (!holdsNow(s)) {
        if (open)
            close(at);
        return;
    }
    if (open && open->token != LockData::of(s.reading).token) {
        // Taken by another holder between two readings: the old one ended
        // at the latest when the new one took it.
        close(s.heldSinceMs > 0 ? std::max(open->acquiredMs, s.heldSinceMs) : at);
        open = nullptr;
    }
    // A lock whose value carries its expiry (a legacy lock) can outlive it:
    // its holder crashed and the key stays until the next client breaks it.
    const qint64 leaseEnd = s.reading.pttlMs >= 0 ? at + s.reading.pttlMs
                            : LockData::of(s.reading).expiresAtMs > 0
                                ? LockData::of(s.reading).expiresAtMs
                                : -1;
    const bool lapsed = s.reading.pttlMs < 0 && leaseEnd > 0 && leaseEnd <= at;
    if (!open && lapsed && !holders.isEmpty()
        && holders.last().token == LockData::of(s.reading).token)
        return; // its expiry is shown already
    if (!open) {
        Holder h;
        h.token = LockData::of(s.reading).token;
        h.acquiredMs = s.heldSinceMs > 0 ? s.heldSinceMs : at;
        // The first holder the console sees held it already when watching
        // began; a later one took it between two readings (one tick apart).
        h.acquiredAtLeast = holders.isEmpty();
        if (lapsed)
            h.acquiredMs = std::min(h.acquiredMs, leaseEnd);
        holders.append(h);
        if (holders.size() > MaxHolders)
            holders.removeFirst();
        open = &holders.last();
        if (!recorded)
            record(key, h, false);
    }
    open->expiresAtMs = leaseEnd;
    if (lapsed)
        close(leaseEnd);
}

void LockTimelinePanel::forget(const QByteArray &key)
{
    const QList<Holder> holders = m_holders.take(key);
    if (holders.isEmpty() || holders.last().endedMs >= 0)
        return; // no holder now: a new one is recorded when it comes
    m_forgotten.insert(key, qHash(holders.last().token));
    m_forgottenOrder.append(key);
    while (m_forgottenOrder.size() > MaxForgotten)
        m_forgotten.remove(m_forgottenOrder.takeFirst());
}

void LockTimelinePanel::setObject(const ObjectState *state)
{
    const bool lock = state && m_kinds.contains(state->object->kind);
    if (!lock) {
        m_key.clear();
        m_table->setRowCount(0);
        hide();
        return;
    }
    if (m_key != state->object->key) {
        m_key = state->object->key;
        follow(*state); // a lock selected before the first snapshot reached the panel
        readHistory(m_key);
    }
    m_asReadAtMs = state->stale || m_offline ? state->reading.atMs : -1;
    setVisible(true);
    fill();
}

void LockTimelinePanel::setOffline(const QString &why)
{
    m_offline = !why.isEmpty();
}

void LockTimelinePanel::setHistory(const std::weak_ptr<HistoryStore> &store, const QString &file)
{
    m_store = store;
    m_historyFile = file;
    if (!m_key.isEmpty())
        readHistory(m_key);
}

void LockTimelinePanel::record(const QByteArray &key, const Holder &holder, bool ended)
{
    const auto store = m_store.lock();
    if (!store)
        return;
    // The holder the console found the lock with was not seen taking it:
    // "held" (at or before), not "acquired".
    const QString kind = ended                    ? holder.end
                         : holder.acquiredAtLeast ? QStringLiteral("held")
                                                  : QStringLiteral("acquired");
    store->recordEvent(ended ? holder.endedMs : holder.acquiredMs, key,
                       QStringLiteral("lock.") + kind, QString::fromUtf8(holder.token.toBase64()));
}

void LockTimelinePanel::readHistory(const QByteArray &key)
{
    if (m_historyFile.isEmpty() || m_earlier.contains(key))
        return;
    const quint64 generation = ++m_readGeneration;
    m_reading = true;
    const qint64 until = m_watchStartMs > 0 ? m_watchStartMs
                                            : QDateTime::currentMSecsSinceEpoch() + m_clockOffsetMs;
    const QString file = m_historyFile;
    auto *watcher = new QFutureWatcher<QList<HistoryEvent>>(this);
    connect(watcher, &QFutureWatcher<QList<HistoryEvent>>::finished, this,
            [this, watcher, key, generation] {
                watcher->deleteLater();
                if (generation == m_readGeneration)
                    m_reading = false;
                // Earlier runs' holders: an acquisition opens one, a release or
                // an expiry of the same token closes it.
                QList<Holder> earlier;
                for (const HistoryEvent &e : watcher->result()) {
                    const QByteArray token = QByteArray::fromBase64(e.text.toLatin1());
                    const bool held = e.kind == QLatin1String("lock.held");
                    const bool open = !earlier.isEmpty() && earlier.last().endedMs < 0;
                    if (held || e.kind == QLatin1String("lock.acquired")) {
                        if (open && earlier.last().token == token)
                            continue; // the same holder, seen again by a later run
                        Holder h;
                        h.token = token;
                        h.acquiredMs = e.atMs;
                        h.acquiredAtLeast = held;
                        h.fromHistory = true;
                        earlier.append(h);
                    } else if (!earlier.isEmpty() && earlier.last().token == token
                               && earlier.last().endedMs < 0) {
                        earlier.last().endedMs = e.atMs;
                        earlier.last().end = e.kind.mid(5); // "released" | "expired"
                    } else if (e.kind.startsWith(QLatin1String("lock."))) {
                        // Ended, taken before the file knew it.
                        Holder h;
                        h.token = token;
                        h.acquiredAtLeast = true;
                        h.acquiredMs = e.atMs;
                        h.endedMs = e.atMs;
                        h.end = e.kind.mid(5);
                        h.fromHistory = true;
                        earlier.append(h);
                    }
                }
                m_earlier.insert(key, earlier);
                if (key == m_key)
                    fill();
            });
    watcher->setFuture(QtConcurrent::run([file, key, until]() -> QList<HistoryEvent> {
        QString error;
        return HistoryStore::readEvents(file, until - HistoryReachMs, until - 1, key,
                                        MaxHistoryEvents, &error)
            .value_or(QList<HistoryEvent>());
    }));
}

void LockTimelinePanel::fitRows(int rows)
{
    // As high as its rows (MinRows to MaxRows, then it scrolls): one holder
    // is one line, not a third of the page.
    const int shown = std::clamp(rows, MinRows, MaxRows);
    const int table = m_table->horizontalHeader()->sizeHint().height()
                      + shown * m_table->verticalHeader()->defaultSectionSize()
                      + 2 * m_table->frameWidth();
    const int spacing = layout()->spacing() >= 0 ? layout()->spacing() : 6;
    const int height = m_title->sizeHint().height() + spacing + table;
    if (m_table->minimumHeight() != table) {
        m_table->setMinimumHeight(table);
        m_table->setMaximumHeight(table);
    }
    setMaximumHeight(height);
}

QList<LockTimelinePanel::Holder> LockTimelinePanel::holders(const QByteArray &key) const
{
    QList<Holder> earlier = m_earlier.value(key);
    QList<Holder> now = m_holders.value(key);
    // The holder the console found the lock with, when the file saw it take
    // the lock in an earlier run: one holder, since then.
    if (!earlier.isEmpty() && !now.isEmpty() && earlier.last().endedMs < 0
        && earlier.last().token == now.first().token && now.first().acquiredAtLeast) {
        now.first().acquiredMs = earlier.last().acquiredMs;
        now.first().acquiredAtLeast = earlier.last().acquiredAtLeast;
        earlier.removeLast();
    }
    // An earlier holder never seen to end: the console stopped watching.
    for (Holder &h : earlier) {
        if (h.endedMs < 0)
            h.end = QStringLiteral("unknown");
    }
    return earlier + now;
}

void LockTimelinePanel::fill()
{
    const QList<Holder> holders = this->holders(m_key);
    m_title->setText(tr("Holders of <b>%1</b> since the console began watching (newest first)")
                         .arg(printableBytes(m_key, 80).toHtmlEscaped()));
    const qint64 now = m_asReadAtMs >= 0 ? m_asReadAtMs
                       : m_last          ? m_last->server.timeMs
                                         : QDateTime::currentMSecsSinceEpoch();
    const auto clock = [this](qint64 serverMs) {
        return QDateTime::fromMSecsSinceEpoch(serverMs - m_clockOffsetMs)
            .toString(QStringLiteral("HH:mm:ss.zzz"));
    };
    m_table->setRowCount(int(holders.size()));
    fitRows(int(holders.size()));
    for (int r = 0; r < holders.size(); ++r) {
        const Holder &h = holders.at(holders.size() - 1 - r);
        const QString token = h.token.isEmpty() ? tr("unknown") : printableBytes(h.token, 120);
        // First seen after its lease had run out (a legacy lock whose holder
        // crashed): when it was taken, and so for how long, is unknown; "≥ 0
        // ms" would say it was held for no time at all.
        const bool seenAfterEnd = h.acquiredAtLeast && h.endedMs >= 0 && h.endedMs <= h.acquiredMs;
        QString acquired
            = (h.acquiredAtLeast ? QStringLiteral("≤ ") : QString()) + clock(h.acquiredMs);
        QString heldFor = h.fromHistory && h.endedMs < 0
                              ? QStringLiteral("–")
                              : (h.acquiredAtLeast ? QStringLiteral("≥ ") : QString())
                                    + formatMs(std::max<qint64>(0, (h.endedMs < 0 ? now : h.endedMs)
                                                                       - h.acquiredMs))
                                    + (h.endedMs < 0 ? tr(" so far") : QString());
        if (h.endedMs < 0 && !h.fromHistory && m_asReadAtMs >= 0)
            heldFor += tr(" as of %1 (no reading since)").arg(clock(m_asReadAtMs));
        QString heldForTip = heldFor;
        if (seenAfterEnd) {
            acquired = tr("before %1").arg(clock(h.endedMs));
            heldFor = tr("unknown: expired before the console saw it");
            heldForTip = tr("Its lease ran out at %1, before the console first read the lock: "
                            "the holder crashed or never released it, and when it took the lock "
                            "is unknown. The next client must break it.")
                             .arg(clock(h.endedMs));
        }
        const QStringList cells{token, acquired, h.endedMs < 0 ? tr("holds it") : clock(h.endedMs),
                                h.endedMs < 0 ? QString() : h.end, heldFor};
        const QStringList tips{h.token.isEmpty() ? tr("The lock's value names no holder") : token,
                               acquired, cells.at(2), cells.at(3), heldForTip};
        for (int c = 0; c < cells.size(); ++c) {
            QTableWidgetItem *item = m_table->item(r, c);
            if (!item) {
                item = new QTableWidgetItem;
                m_table->setItem(r, c, item);
            }
            if (item->text() != cells.at(c))
                item->setText(cells.at(c));
            if (item->toolTip() != tips.at(c))
                item->setToolTip(tips.at(c));
        }
    }
}

} // namespace gatehouse
