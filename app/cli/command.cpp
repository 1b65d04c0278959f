// SPDX-License-Identifier: MIT
#include "command.h"

#include <QTextStream>

namespace gatehouse::cli {

void Command::fail(const QString &message, int exitCode)
{
    if (m_done)
        return;
    QTextStream(stderr) << "gatehouse-cli: " << message << Qt::endl;
    done(exitCode);
}

void Command::done(int exitCode)
{
    if (m_done)
        return;
    m_done = true;
    Q_EMIT finished(exitCode);
}

} // namespace gatehouse::cli
