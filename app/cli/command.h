// SPDX-License-Identifier: MIT
#pragma once

#include "exitcodes.h"

#include <QObject>

namespace gatehouse::cli {

// What every long-lived gatehouse-cli command shares: it ends once, with an
// exit code (finished), after at most one sentence on stderr.
class Command : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

Q_SIGNALS:
    void finished(int exitCode);

protected:
    // "gatehouse-cli: <message>" on stderr, then the exit code; nothing once
    // the command has ended.
    void fail(const QString &message, int exitCode = ExitFailure);
    // The exit code, the first time only.
    void done(int exitCode);
    bool isDone() const { return m_done; }

private:
    bool m_done = false;
};

} // namespace gatehouse::cli
