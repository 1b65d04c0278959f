// SPDX-License-Identifier: MIT
#pragma once

#include "metricsexposition.h"

#include <monitor/snapshot.h>

#include <QElapsedTimer>
#include <QHostAddress>
#include <QObject>

#include <memory>
#include <optional>

QT_BEGIN_NAMESPACE
class QHttpServer;
class QTcpServer;
QT_END_NAMESPACE

namespace gatehouse {

// The Prometheus endpoint: GET /metrics answers with the latest published
// snapshot in the text exposition format (MetricsExposition); every other
// method on /metrics is 405, every other path 404. It never calls Redis: a
// scrape costs the rendering of a snapshot, and that only once per snapshot
// (the text is kept until the next one). Read-only by construction: nothing
// it serves takes input.
// Lives on one thread (the CLI's main thread; in the console, its own).
class MetricsServer : public QObject
{
    Q_OBJECT
public:
    // "127.0.0.1:9187", "[::1]:9187", ":9187" (loopback); a port of 0 picks a
    // free one. nullopt with a sentence in error when it does not parse.
    struct Address
    {
        QHostAddress host;
        quint16 port = 0;
    };
    static std::optional<Address> parseAddress(const QString &text, QString *error);
    // Whether host is a loopback address (the default and the safe choice:
    // the figures name keys, which may say more than an operator wants to
    // publish).
    static bool isLoopback(const QHostAddress &host);
    // Why an address that is not loopback is refused without allowRemote
    // (listen()'s sentence, for a command line to refuse it up front).
    static QString remoteRefusal(const Address &address);

    explicit MetricsServer(QObject *parent = nullptr);
    ~MetricsServer() override;

    // Every source's exposition starts as this one (its deployment label
    // set by addSource).
    void setExposition(const MetricsExposition &exposition);
    // Listens on address; false with a sentence in error (the port is taken,
    // the address is not this machine's). A non-loopback host is refused
    // unless allowRemote (the caller warns).
    bool listen(const Address &address, bool allowRemote, QString *error);
    void close();
    bool isListening() const;
    quint16 port() const { return m_port; }
    QString url() const; // "http://127.0.0.1:9187/metrics"

    // Several deployments in one endpoint: each source is one deployment
    // whose samples carry deployment="<name>" (the families merged, one
    // header each). Returns the source's index. Without any, the one
    // snapshot set is served unlabelled.
    int addSource(const QString &deployment);
    // A source no longer served (its deployment closed); indices of the
    // others stay as they are.
    void removeSource(int source);
    // The deployment label of a source's samples from the next scrape on.
    void setSourceName(int source, const QString &deployment);
    // The snapshot the next scrape serves (of the source given).
    void setSnapshot(const gatehouse::Snapshot &snapshot) { setSnapshotOf(0, snapshot); }
    void setSnapshotOf(int source, const gatehouse::Snapshot &snapshot);
    // The source's deployment stopped (it failed): none of its samples from
    // the next scrape on, until a snapshot is set again (Prometheus marks
    // its series stale rather than keep the last reading as if current).
    void clearSnapshotOf(int source);
    // The monitor's last full tick (after its tickFinished).
    void setTickCost(const gatehouse::TickCost &cost) { setTickCostOf(0, cost); }
    void setTickCostOf(int source, const gatehouse::TickCost &cost);
    qint64 scrapes() const { return m_scrapes; }
    // The body of GET /metrics now (for tests and the benchmark).
    QByteArray body();

Q_SIGNALS:
    void scraped();

private:
    std::unique_ptr<QHttpServer> m_http;
    QTcpServer *m_tcp = nullptr; // owned by m_http once bound
    quint16 m_port = 0;
    QHostAddress m_host;
    struct Source
    {
        MetricsExposition exposition;
        Snapshot snapshot;
        bool haveSnapshot = false;
        QByteArray rendered; // snapshot rendered; empty: to render on the next scrape
        QElapsedTimer snapshotAge;
        TickCost tickCost;
        bool removed = false;
    };
    Source &source(int index);

    MetricsExposition m_exposition;
    QList<Source> m_sources;
    qint64 m_scrapes = 0;
};

// The process's own CPU time (user + system) in seconds and resident memory
// in bytes; -1 when unknown.
double processCpuSeconds();
qint64 processResidentBytes();

} // namespace gatehouse
