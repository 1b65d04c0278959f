// SPDX-License-Identifier: MIT
#pragma once

#include <redis/serverfigures.h>

#include <QGroupBox>
#include <QHash>
#include <QTimer>

class QLabel;

namespace gatehouse {

class ConsoleReads;

// The Overview's server panel: version, role, uptime, memory used / peak /
// limit and policy, clients, ops/s, evictions, hit rate, RDB and AOF state,
// replicas. One INFO every ReadIntervalMs at most, and only while the panel
// is on screen and the connection is up; the reply arrives asynchronously,
// so the GUI thread never waits for it.
class ServerPanel : public QGroupBox
{
    Q_OBJECT
public:
    static constexpr int ReadIntervalMs = 5000;

    explicit ServerPanel(ConsoleReads *reads, QWidget *parent = nullptr);

    const ServerFigures &figures() const { return m_figures; }
    // The value shown for a row ("Version", "Memory", ...), for tests.
    QString value(const QString &row) const;
    // Reads now (if connected), not waiting for the timer.
    void readNow();

    static QString bytes(qint64 n);          // "12.3 MiB"
    static QString duration(qint64 seconds); // "3 d 4 h", "12 min"

Q_SIGNALS:
    void updated();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void display(const ServerFigures &f);
    void setRow(const QString &row, const QString &text, const QString &tip = {});

    ConsoleReads *m_reads;
    QTimer m_timer;
    ServerFigures m_figures;
    QHash<QString, QLabel *> m_values;
};

} // namespace gatehouse
