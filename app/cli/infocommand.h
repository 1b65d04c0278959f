// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <QString>

namespace gatehouse::cli {

// What `gatehouse-cli info` prints before it connects: every path and setting
// this run would use, and the versions of Gatehouse, Qt and hiredis.
struct InfoPaths
{
    QString profile;    // --profile, empty when none
    QString auditLog;   // --audit-log, empty for the default
    QString historyDir; // --history-dir, empty for the default
};
void printLocalInfo(const RedisEndpoint &endpoint, const InfoPaths &paths);

// `gatehouse-cli info` with a connection option: the local part, then the
// server's version and mode from one INFO server.
class InfoCommand : public Session
{
    Q_OBJECT
public:
    using Session::Session;

protected:
    void onReady() override;
};

// `gatehouse-cli help SUBJECT`: the lines of the full --help that are about
// SUBJECT (a command such as "queue", "watch", "history"): its usage lines and
// the options that name it. Empty when nothing is about it.
QString subjectHelp(const QString &subject, const QString &fullHelp);
// The subjects `help` knows: the first word of each usage line, in order.
QStringList helpSubjects(const QString &fullHelp);

} // namespace gatehouse::cli
