// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include <redis/redisclient.h>

#include <QApplication>
#include <QLabel>
#include <QMenuBar>
#include <QStatusBar>

namespace gatehouse {

MainWindow::MainWindow(RedisClient *client, QWidget *parent)
    : QMainWindow(parent)
    , m_client(client)
    , m_stateLabel(new QLabel(this))
    , m_central(new QLabel(this))
{
    setWindowTitle(QStringLiteral("Gatehouse — %1").arg(client->endpoint().displayUrl()));
    setWindowIcon(QIcon(QStringLiteral(":/resources/gatehouse.svg")));
    m_central->setAlignment(Qt::AlignCenter);
    m_central->setWordWrap(true);
    setCentralWidget(m_central);
    statusBar()->addPermanentWidget(m_stateLabel);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    connect(client, &RedisClient::stateChanged, this, &MainWindow::showState);
    showState(client->state(), client->errorString());
    resize(900, 600);
}

void MainWindow::showState(RedisConnection::State state, const QString &message)
{
    QString text;
    switch (state) {
    case RedisConnection::State::Disconnected:
        text = tr("Disconnected");
        break;
    case RedisConnection::State::Connecting:
        text = tr("Connecting…");
        break;
    case RedisConnection::State::Ready:
        text = tr("Connected");
        break;
    case RedisConnection::State::Reconnecting:
        text = tr("Reconnecting…");
        break;
    case RedisConnection::State::Failed:
        text = tr("Failed");
        break;
    }
    m_stateLabel->setText(text);
    m_central->setText(message.isEmpty() ? tr("%1\n%2").arg(m_client->endpoint().displayUrl(), text)
                                         : message);
}

} // namespace gatehouse
