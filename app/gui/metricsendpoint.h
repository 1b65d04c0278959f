// SPDX-License-Identifier: MIT
#pragma once

#include <QAction>
#include <QObject>
#include <QThread>

#include <memory>
#include <vector>

namespace gatehouse {

class Deployment;
class MetricsFeed;
class MetricsServer;

// The console's Prometheus endpoint (View > Serve metrics for Prometheus,
// or --metrics ADDR): the MetricsServer on a thread of its own, so a scrape
// never takes time from the GUI; fed every snapshot each deployment
// publishes (MetricsFeed, as `serve` is).
// Its address and whether it is on are kept in QSettings ("metrics/address",
// "metrics/enabled"); lives as long as the application, across reconnections.
class MetricsEndpoint : public QObject
{
    Q_OBJECT
public:
    explicit MetricsEndpoint(QObject *parent = nullptr);
    ~MetricsEndpoint() override;

    // The command line's --metrics ADDR: on, at ADDR, for this run only
    // (the settings change only from the menu). False with a sentence when
    // ADDR does not parse.
    bool setAddress(const QString &address, QString *error);
    QString address() const { return m_address; }
    // The checkable menu item; toggling it starts or stops the endpoint.
    QAction *toggleAction() { return &m_toggle; }
    // Feeds the endpoint from deployment, one per open window. Its samples
    // carry deployment="<name>" when more than one deployment is fed, or
    // when named (the command line's --deployment NAME=URL); with a single
    // unnamed deployment they carry no such label.
    void add(Deployment *deployment, const QString &name, bool named);
    // The deployment closed: its samples go from the next scrape on.
    void remove(Deployment *deployment);
    // Starts serving if it is on (settings or --metrics); a failure (the
    // port taken) turns it off and is reported through failed().
    void startIfEnabled();
    bool isServing() const { return m_serving; }

Q_SIGNALS:
    void failed(const QString &message);
    void serving(const QString &url);

private:
    void setEnabled(bool on); // the menu: remembered in the settings
    void apply(bool on);
    void relabel();

    QThread m_thread;
    MetricsServer *m_server = nullptr; // lives on m_thread; deleted when it finishes
    QAction m_toggle;
    QString m_address;
    struct Feed
    {
        std::unique_ptr<MetricsFeed> feed; // its deployment and source
        QString name;
        bool named = false;
    };
    std::vector<Feed> m_feeds;
    int m_sources = 0; // sources added to the server, in order: the next one's index
    bool m_serving = false;
};

} // namespace gatehouse
