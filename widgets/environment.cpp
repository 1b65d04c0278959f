// SPDX-License-Identifier: MIT
#include "environment.h"

#include <QVariant>
#include <QWidget>

namespace gatehouse {

namespace {
// The window's dynamic properties (MainWindow sets them once).
constexpr char s_environmentProperty[] = "gatehouseEnvironment";
constexpr char s_connectionProperty[] = "gatehouseConnection";

// The nearest window, from widget's own outwards (a dialog opened from a
// dialog of the main window), that was marked.
const QWidget *markedWindow(const QWidget *widget)
{
    for (const QWidget *w = widget ? widget->window() : nullptr; w;
         w = w->parentWidget() ? w->parentWidget()->window() : nullptr) {
        if (w->property(s_environmentProperty).isValid())
            return w;
    }
    return nullptr;
}
} // namespace

void markWindow(QWidget *window, const Environment &environment, const QString &connection)
{
    window->setProperty(s_environmentProperty, QVariant::fromValue(environment));
    window->setProperty(s_connectionProperty, connection);
}

Environment environmentOf(const QWidget *widget)
{
    const QWidget *window = markedWindow(widget);
    return window ? window->property(s_environmentProperty).value<Environment>() : Environment();
}

QString connectionOf(const QWidget *widget)
{
    const QWidget *window = markedWindow(widget);
    return window ? window->property(s_connectionProperty).toString() : QString();
}

} // namespace gatehouse
