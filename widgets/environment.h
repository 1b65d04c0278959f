// SPDX-License-Identifier: MIT
#pragma once

#include <actions/environment.h>

#include <QString>

class QWidget;

namespace gatehouse {

// MainWindow marks its window with its connection's environment and address
// (as displayed, without a password); the dialogs it opens read them back
// from their parent's window. Unmarked: no environment, an empty address.
void markWindow(QWidget *window, const Environment &environment, const QString &connection);
Environment environmentOf(const QWidget *widget);
QString connectionOf(const QWidget *widget);

} // namespace gatehouse
