// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisconnection.h>

#include <QMainWindow>

class QLabel;

namespace gatehouse {

class RedisClient;

// The console's main window. For now it shows the connection and its state;
// the pages arrive with the console issue. The client is injected, never
// looked up, and the window never touches a socket.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(RedisClient *client, QWidget *parent = nullptr);

private:
    void showState(RedisConnection::State state, const QString &message);

    RedisClient *m_client;
    QLabel *m_stateLabel;
    QLabel *m_central;
};

} // namespace gatehouse
