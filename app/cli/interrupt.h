// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QSocketNotifier>

#include <memory>

namespace gatehouse::cli {

// SIGINT and SIGTERM as a Qt signal on the thread that made it, so a long
// command (watch --fail-on-alert) ends with its own exit code instead of
// the shell's 130. The handler only writes a byte to a pipe (all a signal
// handler may safely do); the notifier reads it in the event loop.
class Interrupt : public QObject
{
    Q_OBJECT
public:
    explicit Interrupt(QObject *parent = nullptr);
    ~Interrupt() override;

Q_SIGNALS:
    void interrupted(int signal);

private:
    std::unique_ptr<QSocketNotifier> m_notifier;
};

} // namespace gatehouse::cli
