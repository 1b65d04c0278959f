// SPDX-License-Identifier: MIT
#include "serverpanel.h"

#include <deployment/consolereads.h>

#include <patterns/presentation.h>

#include <QDateTime>
#include <QGridLayout>
#include <QLabel>

namespace gatehouse {

namespace {

const QStringList &rows()
{
    static const QStringList names{
        QStringLiteral("Version"), QStringLiteral("Role"),      QStringLiteral("Uptime"),
        QStringLiteral("Memory"),  QStringLiteral("Policy"),    QStringLiteral("Clients"),
        QStringLiteral("Ops/s"),   QStringLiteral("Evictions"), QStringLiteral("Hit rate"),
        QStringLiteral("RDB"),     QStringLiteral("AOF"),       QStringLiteral("Replicas")};
    return names;
}

QString count(qint64 n)
{
    return n < 0 ? QStringLiteral("?") : QString::number(n);
}

} // namespace

ServerPanel::ServerPanel(ConsoleReads *reads, QWidget *parent)
    : QGroupBox(tr("Server"), parent)
    , m_reads(reads)
{
    setObjectName(QStringLiteral("serverPanel"));
    auto *grid = new QGridLayout(this);
    // Two label/value pairs per line: twelve figures in six short lines.
    for (int i = 0; i < rows().size(); ++i) {
        auto *name = new QLabel(tr("%1:").arg(rows().at(i)), this);
        auto *value = new QLabel(QStringLiteral("…"), this);
        value->setObjectName(QStringLiteral("server_") + rows().at(i));
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        const int line = i / 2, column = (i % 2) * 2;
        grid->addWidget(name, line, column);
        grid->addWidget(value, line, column + 1);
        m_values.insert(rows().at(i), value);
    }
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
    m_timer.setInterval(ReadIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &ServerPanel::readNow);
    // A (re)connection reads at once rather than up to ReadIntervalMs later.
    connect(m_reads, &ConsoleReads::ready, this, [this] {
        if (isVisible())
            readNow();
    });
}

void ServerPanel::showEvent(QShowEvent *event)
{
    QGroupBox::showEvent(event);
    m_timer.start();
    readNow();
}

void ServerPanel::hideEvent(QHideEvent *event)
{
    QGroupBox::hideEvent(event);
    m_timer.stop();
}

void ServerPanel::readNow()
{
    // One INFO in flight at most; while one is, or offline, the figures
    // stay as last read.
    m_reads->readServer(this, [this](const ServerFigures &f) { display(f); });
}

QString ServerPanel::value(const QString &row) const
{
    const QLabel *label = m_values.value(row);
    return label ? label->text() : QString();
}

void ServerPanel::setRow(const QString &row, const QString &text, const QString &tip)
{
    QLabel *label = m_values.value(row);
    label->setText(text);
    label->setToolTip(tip);
}

QString ServerPanel::bytes(qint64 n)
{
    return n < 0 ? QStringLiteral("?") : formatBytes(n);
}

QString ServerPanel::duration(qint64 s)
{
    if (s < 0)
        return QStringLiteral("?");
    if (s < 120)
        return tr("%1 s").arg(s);
    if (s < 2 * 3600)
        return tr("%1 min").arg(s / 60);
    if (s < 2 * 86400)
        return tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
    return tr("%1 d %2 h").arg(s / 86400).arg((s % 86400) / 3600);
}

void ServerPanel::display(const ServerFigures &f)
{
    m_figures = f;
    if (!f.error.isEmpty()) {
        for (const QString &row : rows())
            setRow(row, QStringLiteral("?"), tr("INFO failed: %1").arg(f.error));
        setRow(QStringLiteral("Version"), tr("unknown (INFO: %1)").arg(f.error));
        Q_EMIT updated();
        return;
    }
    setRow(QStringLiteral("Version"), f.version.isEmpty() ? QStringLiteral("?") : f.version);
    setRow(QStringLiteral("Role"), f.role.isEmpty() ? QStringLiteral("?") : f.role);
    setRow(QStringLiteral("Uptime"), duration(f.uptimeS));
    setRow(QStringLiteral("Memory"),
           tr("%1 used, %2 peak, %3")
               .arg(bytes(f.usedMemoryBytes), bytes(f.peakMemoryBytes),
                    f.maxMemoryBytes == 0 ? tr("no limit")
                                          : tr("limit %1").arg(bytes(f.maxMemoryBytes))));
    setRow(QStringLiteral("Policy"),
           f.maxMemoryPolicy.isEmpty() ? QStringLiteral("?") : f.maxMemoryPolicy,
           tr("maxmemory-policy: what Redis does at the memory limit"));
    setRow(QStringLiteral("Clients"),
           f.blockedClients > 0 ? tr("%1 (%2 blocked)").arg(count(f.clients)).arg(f.blockedClients)
                                : count(f.clients));
    setRow(QStringLiteral("Ops/s"), count(f.opsPerSec));
    setRow(QStringLiteral("Evictions"), count(f.evictedKeys),
           tr("Keys evicted at the memory limit since the server started; %1 expired")
               .arg(count(f.expiredKeys)));
    const double rate = f.hitRate();
    setRow(QStringLiteral("Hit rate"),
           rate < 0 ? tr("no lookups yet") : QStringLiteral("%1 %").arg(rate * 100, 0, 'f', 1),
           tr("%1 hits, %2 misses").arg(count(f.keyspaceHits), count(f.keyspaceMisses)));
    QString rdb = f.rdbSaving ? tr("saving") : f.rdbLastBgsaveStatus;
    if (f.rdbChangesSinceSave >= 0)
        rdb += tr(", %1 changes since the last save").arg(f.rdbChangesSinceSave);
    setRow(QStringLiteral("RDB"), rdb,
           f.rdbLastSaveTimeS > 0 ? tr("Last saved %1")
                                        .arg(QDateTime::fromSecsSinceEpoch(f.rdbLastSaveTimeS)
                                                 .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")))
                                  : QString());
    setRow(QStringLiteral("AOF"), f.aofEnabled < 0 ? QStringLiteral("?")
                                  : f.aofEnabled == 0
                                      ? tr("off")
                                      : tr("on, last write %1").arg(f.aofLastWriteStatus));
    setRow(QStringLiteral("Replicas"), count(f.connectedReplicas));
    Q_EMIT updated();
}

} // namespace gatehouse
