// SPDX-License-Identifier: MIT
#include "timelinepage.h"

#include "theme.h"

#include <history/historystore.h>

#include <QDateTime>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace gatehouse {

namespace {

// How far back the history file is read when the page opens on it.
constexpr qint64 HistoryReachMs = 7LL * 24 * 3600 * 1000;
constexpr int MaxHistoryEvents = 20000;

} // namespace

TimelinePage::TimelinePage(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(0, 4, this))
{
    setObjectName(QStringLiteral("timelinePage"));
    auto *layout = new QVBoxLayout(this);
    m_summary->setObjectName(QStringLiteral("timelineSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_table->setObjectName(QStringLiteral("timelineTable"));
    m_table->setHorizontalHeaderLabels({tr("Time"), tr("Event"), tr("Node"), tr("What happened")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);
    fill();
}

void TimelinePage::setSnapshot(const Snapshot &snapshot)
{
    const QList<ConnectionTimeline::Entry> added
        = m_timeline.observe(snapshot, QDateTime::currentMSecsSinceEpoch());
    if (!added.isEmpty())
        fill();
}

void TimelinePage::setHistoryFile(const QString &file)
{
    if (file.isEmpty())
        return;
    const qint64 until = QDateTime::currentMSecsSinceEpoch();
    auto *watcher = new QFutureWatcher<QList<ConnectionTimeline::Entry>>(this);
    connect(watcher, &QFutureWatcher<QList<ConnectionTimeline::Entry>>::finished, this,
            [this, watcher] {
                watcher->deleteLater();
                m_timeline.prepend(watcher->result());
                fill();
            });
    watcher->setFuture(QtConcurrent::run([file, until]() {
        QString error;
        QList<ConnectionTimeline::Entry> earlier;
        const QList<HistoryEvent> events
            = HistoryStore::readEvents(file, until - HistoryReachMs, until, QByteArray(),
                                       MaxHistoryEvents, &error)
                  .value_or(QList<HistoryEvent>());
        for (const HistoryEvent &e : events) {
            if (const auto entry = ConnectionTimeline::Entry::fromHistory(e.atMs, e.kind, e.text))
                earlier.append(*entry);
        }
        return earlier;
    }));
}

void TimelinePage::fill()
{
    const QList<ConnectionTimeline::Entry> &entries = m_timeline.entries();
    m_summary->setText(
        entries.isEmpty()
            ? tr("Nothing has happened to the connection yet. Connections lost and back, "
                 "restarts, master switches and readings going stale are listed here.")
            : tr("What happened to the connection, newest first (times are the server's, in "
                 "local time; the last %n kept).",
                 nullptr, ConnectionTimeline::MaxEntries));
    m_table->setRowCount(int(entries.size()));
    const QColor alarm = theme::limit(palette()); // red, readable on Base in both palettes
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const ConnectionTimeline::Entry &e = entries.at(entries.size() - 1 - i);
        const int row = int(i);
        const QString when = QDateTime::fromMSecsSinceEpoch(e.atMs).toLocalTime().toString(
            QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
        const QStringList cells{when, ConnectionTimeline::Entry::title(e.event), e.node, e.text};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells.at(c));
            item->setToolTip(cells.at(c));
            if (c == 1 && ConnectionTimeline::Entry::isLoss(e.event))
                item->setForeground(alarm);
            m_table->setItem(row, c, item);
        }
    }
}

} // namespace gatehouse
