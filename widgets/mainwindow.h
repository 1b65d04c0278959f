// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>
#include <patterns/patternregistry.h>
#include <patterns/scriptcall.h>
#include <redis/redisconnection.h>

#include <QElapsedTimer>
#include <QHash>
#include <QMainWindow>
#include <QPixmap>
#include <QPolygonF>
#include <QSet>
#include <QTimer>

class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableView;
class QTableWidget;
class QToolButton;

namespace gatehouse {

class ActionEngine;
class ChartPanel;
class Monitor;
class ObjectTableModel;
class RedisClient;
struct ActionOutcome;

// The console's main window: Overview, Limiters, Locks, Tokens, Queues and
// Audit log pages, drawn from the monitor's snapshots; operator actions go
// through a confirmation showing exactly what will run, then the actions
// engine. The backend objects are injected; the window never opens a socket.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    // Overview items: their sparkline, a QPolygonF drawn by the list's delegate.
    static constexpr int SparklineRole = Qt::UserRole + 2;

    struct Options
    {
        bool readOnly = false;
        bool demo = false;
    };

    MainWindow(RedisClient *client, Monitor *monitor, ActionEngine *actions, Options options,
               QWidget *parent = nullptr);
    ~MainWindow() override;

    // For tests and the screenshot run.
    QString bannerText() const; // empty while no banner is shown
    QStringList pageNames() const;
    void showPage(int index);
    int pageOf(const QString &section) const { return int(m_pageSections.indexOf(section)); }
    QWidget *page(int index) const;
    ObjectTableModel *model(const QString &section) const;
    ChartPanel *chart(const QString &section) const;
    QTableView *table(const QString &section) const;
    QString lastOutcome() const { return m_lastOutcome; }
    void selectRow(const QString &section, int row);

Q_SIGNALS:
    void actionFinished(const QString &message);
    // File > Connect…: the application opens the connection dialog.
    void connectRequested();

private:
    QWidget *buildOverview();
    QWidget *buildLimiters();
    QWidget *buildLocks();
    QWidget *buildTokens();
    QWidget *buildQueues();
    QWidget *buildAudit();
    // The page of any section without one of its own: the registry's columns,
    // items, figures and actions.
    QWidget *buildSectionPage(const Section &section);
    void updateSectionItems(const QString &section);
    // The action actionId of the selected object's pattern: inputs (shown,
    // the item chosen, typed), then the confirmation.
    void actOnSelected(const QString &section, const QString &actionId);
    QTableView *makeTable(const QString &section, QWidget *parent);
    QPushButton *actionButton(const QString &text, QWidget *parent);
    const ObjectState *selected(const QString &section) const;

    void onSnapshot(const Snapshot &snapshot);
    void onTimer();
    void showState(RedisConnection::State state, const QString &message);
    // Authentication and TLS failures do not heal by waiting, and an action
    // whose outcome is unknown must not pass by in the status bar: a banner
    // over the pages says what happened and what to try.
    enum class BannerKind { None, Connection, Action };
    void showBanner(BannerKind kind, const QString &title, const QString &message,
                    const QString &advice);
    void showOutcome(const ActionOutcome &outcome, const QString &action);
    void updateOverview();
    void updateStuckItems();
    void reloadAudit();
    // Confirmation (exact script, KEYS, ARGV), then run; the outcome goes to
    // the status bar and the page.
    void act(const ScriptCall &call);
    void issueToken();
    void updateConsumers();
    // A figure's history as a polyline in an 80x20 box (for SparklineRole).
    QPolygonF sparkline(const QByteArray &key, const QString &figure) const;

public:
    // Writes a section's table (the rows as shown, filter and sort applied) as CSV.
    bool exportCsv(const QString &section, const QString &fileName) const;

    RedisClient *m_client;
    Monitor *m_monitor;
    ActionEngine *m_actions;
    Options m_options;
    Snapshot m_snapshot;
    QString m_lastOutcome;

    QListWidget *m_pages;
    QStackedWidget *m_stack;
    QHash<QString, ObjectTableModel *> m_models;
    QStringList m_pageSections; // the section of each page; empty for Overview and Audit
    QHash<QString, QTableWidget *> m_items; // generic pages: the selected object's items
    // Models of pages not on screen take the latest snapshot when shown (or
    // asked for): a hidden table of 10,000 rows costs nothing per tick.
    mutable QSet<QString> m_staleModels;
    void syncModel(const QString &section) const;
    QHash<QString, QTableView *> m_tables;
    QHash<QString, ChartPanel *> m_charts;
    QList<QPushButton *> m_actionButtons;
    QLabel *m_overviewCounts = nullptr;
    QListWidget *m_hot = nullptr;
    QTableWidget *m_stuck = nullptr;
    QTableWidget *m_audit = nullptr;
    QSpinBox *m_extendTtl = nullptr;
    QLineEdit *m_revokeKey = nullptr;
    QLineEdit *m_limiterFilter = nullptr;

    QLabel *m_stateLabel;
    QWidget *m_banner = nullptr;
    QLabel *m_bannerText = nullptr;
    QPushButton *m_bannerConnect = nullptr;
    QPushButton *m_bannerDismiss = nullptr;
    BannerKind m_bannerKind = BannerKind::None;
    QString m_stateMessage; // the connection sentence in the status bar, if any
    QLabel *m_serverLabel;
    QLabel *m_eventsLabel;
    QLabel *m_ageLabel;
    QLabel *m_offsetLabel;
    QProgressBar *m_discoveryBar;
    QToolButton *m_cancelDiscovery;
    QTimer m_timer; // replots and the age of the last reading, never per sample
    QElapsedTimer m_reconnectClock;
    qint64 m_reconnectInMs = -1; // the announced delay of the next attempt
    QListWidget *m_consumers = nullptr;
    bool m_dirty = false;
    bool m_everReady = false; // a handshake succeeded: the figures are readings
};

} // namespace gatehouse
