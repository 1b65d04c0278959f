// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>
#include <patterns/objecthealth.h>

#include <QPolygonF>
#include <QWidget>

#include <memory>

class QLabel;
class QListWidget;

namespace gatehouse {

struct AlertEvent;
class ChartPanel;
class OverviewTiles;
class QueueActivity;

// The Overview: how many objects of each section, the server's notes, and
// what needs attention (ranked by the backend: Snapshot::attention), each
// with a sparkline; a click opens the object on its page.
class OverviewPage : public QWidget
{
    Q_OBJECT
public:
    // Attention items: their sparkline, a QPolygonF in an 80x20 box drawn by
    // the list's delegate.
    static constexpr int SparklineRole = Qt::UserRole + 2;

    explicit OverviewPage(QWidget *parent = nullptr);
    ~OverviewPage() override;

    // connected: a handshake succeeded, so the figures are readings (before
    // that the page says so instead of showing zeros).
    void update(const Snapshot &snapshot, bool connected);
    QListWidget *attentionList() const { return m_attention; }
    OverviewTiles *tiles() const { return m_tiles; }
    // The server's figures (ServerPanel), under the counts; the page owns it.
    void setServerPanel(QWidget *panel);
    // Every snapshot, shown or not: the queues' chart keeps its live history,
    // summed off the GUI thread at most once a second.
    void record(const std::shared_ptr<const Snapshot> &snapshot);
    // The connection's history file: the chart's ranges beyond the live one.
    void setHistoryFile(const QString &path);
    ChartPanel *queueChart() const { return m_queueChart; }
    // The alerts firing now (AlertEngine::firing): how many and the worst,
    // a link to the Alerts page; hidden while none fire.
    void setFiring(const QList<AlertEvent> &firing);
    QLabel *firingLabel() const { return m_firing; }

Q_SIGNALS:
    void openRequested(const QString &section, const QByteArray &key);
    void alertsRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void styleFiring();

    QLabel *m_counts;
    QLabel *m_firing;
    Severity m_firingSeverity = Severity::Warning; // the worst firing's
    QString m_firingText;                          // HTML, without its link
    OverviewTiles *m_tiles;
    QListWidget *m_attention;
    ChartPanel *m_queueChart;
    std::unique_ptr<QueueActivity> m_activity;
    bool m_summing = false; // a sum runs on the thread pool
};

// A series as a polyline scaled into an 80x20 box (NaN points left out).
QPolygonF sparklinePolygon(const QList<QPointF> &points);

} // namespace gatehouse
